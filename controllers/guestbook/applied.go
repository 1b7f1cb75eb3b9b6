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

package guestbook

import (
	"context"

	appsv1 "k8s.io/api/apps/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/types"
	appsv1ac "k8s.io/client-go/applyconfigurations/apps/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// applyConfiguration is an apply configuration that names its object.
type applyConfiguration interface {
	GetName() *string
	GetNamespace() *string
}

// appliedAlready reports whether applying want would change nothing: the fields that cur, the cached object want
// names, lists as FieldOwner's in its managedFields entry (read back with extract, client-go's Extract<Kind>)
// hold exactly want. A field someone else changed since is no longer FieldOwner's, and one FieldOwner applied
// but no longer wants is still listed as its own, so either makes them differ and the apply puts it right. An
// object that cannot be read, or is cached without its managedFields, is not applied already.
func appliedAlready[O client.Object, A applyConfiguration](ctx context.Context, c client.Reader, cur O, want A,
	extract func(O, string) (A, error)) bool {
	key := types.NamespacedName{Namespace: ptr.Deref(want.GetNamespace(), ""), Name: ptr.Deref(want.GetName(), "")}
	if err := c.Get(ctx, key, cur); err != nil {
		return false
	}
	have, err := extract(cur, FieldOwner)
	return err == nil && equality.Semantic.DeepEqual(have, want)
}

// warmApplyExtraction makes the process's first extraction of applied fields, which parses client-go's schema
// of every apply configuration (about 0.1 s of CPU, and more on a busy machine), at start-up: otherwise the first
// reconcile that compares an object pays it, and for a standby that had not yet compared one, that is its first
// reconcile as leader, at a hand-off.
func warmApplyExtraction() {
	_, _ = appsv1ac.ExtractDeployment(&appsv1.Deployment{}, FieldOwner)
}
