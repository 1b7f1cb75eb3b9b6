/*
Copyright 2026 The siteops Authors.

Licensed under the Apache License, Version 2.0 (the "License");
you may not use this file except in compliance with the License.
You may obtain a copy of the License at

    http://www.apache.org/licenses/LICENSE-2.0

Unless required by applicable law or agreed to in writing, software
distributed under the License is distributed on an "AS IS" BASIS,
WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
See the License for the specific language governing permissions and
limitations under the License.
*/

package kit

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"

	jsonpatch "github.com/evanphx/json-patch/v5"
	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// PatchStatus writes obj's status once, as a JSON merge patch of the status alone against before (the object
// as the reconcile read it), and sends nothing when the status did not change. Most reconciles change nothing,
// so that is decided by comparing the two statuses before any JSON is encoded. The patch is computed once,
// and the API server answers it with the object's metadata only: the status is the one just written, so only
// the new resourceVersion, copied to obj, is read back. An object deleted meanwhile is not an error.
func PatchStatus(ctx context.Context, c client.Client, before, obj client.Object) error {
	was, now, err := statuses(before, obj)
	if err != nil {
		return err
	}
	if equality.Semantic.DeepEqual(was, now) {
		return nil
	}
	data, err := StatusMergePatch(was, now)
	if err != nil {
		return fmt.Errorf("computing the status patch of %s: %w", client.ObjectKeyFromObject(obj), err)
	}
	if data == nil {
		return nil
	}
	gvk, err := c.GroupVersionKindFor(obj)
	if err != nil {
		return fmt.Errorf("patching the status of %s: %w", client.ObjectKeyFromObject(obj), err)
	}
	meta := &metav1.PartialObjectMetadata{ObjectMeta: metav1.ObjectMeta{Namespace: obj.GetNamespace(),
		Name: obj.GetName(), ResourceVersion: obj.GetResourceVersion()}}
	meta.SetGroupVersionKind(gvk)
	if err := c.Status().Patch(ctx, meta, client.RawPatch(types.MergePatchType, data)); apierrors.IsNotFound(err) {
		return nil
	} else if err != nil {
		return fmt.Errorf("patching the status of %s: %w", client.ObjectKeyFromObject(obj), err)
	}
	obj.SetResourceVersion(meta.ResourceVersion)
	return nil
}

// StatusMergePatch is the JSON merge patch {"status": …} that turns the status was into now (fields cleared
// in now are null in it), or nil when the two encode alike.
func StatusMergePatch(was, now any) ([]byte, error) {
	a, err := json.Marshal(was)
	if err != nil {
		return nil, fmt.Errorf("encoding the status read: %w", err)
	}
	b, err := json.Marshal(now)
	if err != nil {
		return nil, fmt.Errorf("encoding the status to write: %w", err)
	}
	diff, err := jsonpatch.CreateMergePatch(a, b)
	if err != nil {
		return nil, fmt.Errorf("diffing the statuses: %w", err)
	}
	if string(diff) == "{}" {
		return nil, nil
	}
	return json.Marshal(map[string]json.RawMessage{"status": diff})
}

// statuses returns the Status fields of before and obj, which must be pointers to the same struct type.
func statuses(before, obj client.Object) (was, now any, err error) {
	a, b := reflect.ValueOf(before), reflect.ValueOf(obj)
	if a.Type() != b.Type() || a.Kind() != reflect.Pointer || a.Elem().Kind() != reflect.Struct {
		return nil, nil, fmt.Errorf("patching the status of %s: %T and %T are not the same kind of object",
			client.ObjectKeyFromObject(obj), before, obj)
	}
	sa, sb := a.Elem().FieldByName("Status"), b.Elem().FieldByName("Status")
	if !sa.IsValid() {
		return nil, nil, fmt.Errorf("patching the status of %s: %T has no Status field",
			client.ObjectKeyFromObject(obj), obj)
	}
	return sa.Interface(), sb.Interface(), nil
}
