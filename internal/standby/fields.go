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

package standby

import (
	"context"
	"encoding/json"
	"reflect"
	"sort"
	"strings"

	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// maxDepth bounds how deep field paths go: ".spec.template.spec" says enough about a write.
const maxDepth = 4

// kindOf names obj's kind from the client's scheme.
func kindOf(c client.Client, obj client.Object) string {
	if gvk, err := c.GroupVersionKindFor(obj); err == nil {
		return gvk.Kind
	}
	return reflect.TypeOf(obj).Elem().Name()
}

// createdFields lists the top-level fields a create sets.
func createdFields(obj client.Object) []string {
	m, err := runtime.DefaultUnstructuredConverter.ToUnstructured(obj)
	if err != nil {
		return nil
	}
	var out []string
	for k := range m {
		if k != "apiVersion" && k != "kind" && k != "status" {
			out = append(out, "."+k)
		}
	}
	sort.Strings(out)
	return out
}

// patchFields lists the leaf paths a patch sets, up to maxDepth.
func patchFields(obj client.Object, patch client.Patch) []string {
	data, err := patch.Data(obj)
	if err != nil {
		return nil
	}
	var m map[string]any
	if json.Unmarshal(data, &m) != nil {
		return []string{"(" + string(patch.Type()) + ")"}
	}
	delete(m, "metadata")
	var out []string
	leafPaths("", m, 0, &out)
	sort.Strings(out)
	return out
}

// changedFields lists the paths where obj differs from what the client reads for it now, up to maxDepth.
func (c *WriteRecorder) changedFields(ctx context.Context, obj client.Object) []string {
	current, ok := obj.DeepCopyObject().(client.Object)
	if !ok || c.Get(ctx, client.ObjectKeyFromObject(obj), current) != nil {
		return nil
	}
	a, errA := runtime.DefaultUnstructuredConverter.ToUnstructured(current)
	b, errB := runtime.DefaultUnstructuredConverter.ToUnstructured(obj)
	if errA != nil || errB != nil {
		return nil
	}
	delete(a, "metadata")
	delete(b, "metadata")
	var out []string
	diffPaths("", a, b, 0, &out)
	sort.Strings(out)
	return out
}

// leafPaths appends the paths of v's leaves (maps are walked, anything else is a leaf).
func leafPaths(prefix string, v any, depth int, out *[]string) {
	m, ok := v.(map[string]any)
	if !ok || depth == maxDepth || len(m) == 0 {
		if prefix != "" {
			*out = append(*out, prefix)
		}
		return
	}
	for k, child := range m {
		leafPaths(prefix+"."+k, child, depth+1, out)
	}
}

// diffPaths appends the paths where a and b differ.
func diffPaths(prefix string, a, b any, depth int, out *[]string) {
	am, aok := a.(map[string]any)
	bm, bok := b.(map[string]any)
	if !aok || !bok || depth == maxDepth {
		if !reflect.DeepEqual(a, b) {
			*out = append(*out, strings.TrimSpace(prefix))
		}
		return
	}
	keys := map[string]bool{}
	for k := range am {
		keys[k] = true
	}
	for k := range bm {
		keys[k] = true
	}
	for k := range keys {
		diffPaths(prefix+"."+k, am[k], bm[k], depth+1, out)
	}
}
