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
)

// deploymentUpToDate reports whether applying want would change nothing: the fields the cached Deployment says
// FieldOwner owns (its managedFields entry, read back with appsv1ac.ExtractDeployment) hold exactly want. A
// field someone else changed since is no longer FieldOwner's, and one FieldOwner applied but no longer wants
// is still listed as its own, so either makes them differ and the apply puts it right. A Deployment that cannot
// be read, or cached without its managedFields, is not up to date.
func (r *Reconciler) deploymentUpToDate(ctx context.Context, want *appsv1ac.DeploymentApplyConfiguration) bool {
	cur := &appsv1.Deployment{}
	if err := r.Get(ctx, types.NamespacedName{Namespace: ptr.Deref(want.Namespace, ""), Name: ptr.Deref(want.Name, "")}, cur); err != nil {
		return false
	}
	have, err := appsv1ac.ExtractDeployment(cur, FieldOwner)
	if err != nil {
		return false
	}
	return equality.Semantic.DeepEqual(have, want)
}

// warmDeploymentExtraction makes the process's first appsv1ac.ExtractDeployment, which parses client-go's
// schema of every apply configuration (about 0.1 s of CPU, and more on a busy machine), at start-up: otherwise
// the first reconcile that compares a Deployment pays it, and for a standby that had not yet compared one, that
// is its first reconcile as leader, at a hand-off.
func warmDeploymentExtraction() {
	_, _ = appsv1ac.ExtractDeployment(&appsv1.Deployment{}, FieldOwner)
}
