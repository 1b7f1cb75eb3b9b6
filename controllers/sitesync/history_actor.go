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

package sitesync

import (
	"context"
	"encoding/json"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	logf "sigs.k8s.io/controller-runtime/pkg/log"

	gitopsv1alpha1 "github.com/siteops/siteops/apis/gitops/v1alpha1"
)

// annotationSetter is the rollout history's waves.Input.Actor: who last set an annotation of the SiteSync is
// the field manager of the managedFields entry that owns it (kubectl-annotate, or what --field-manager named).
// The SiteSync is read from the apiserver the first time the history asks, at most once per reconcile: the
// manager's cache drops managedFields, and a cached copy may predate the annotation the plan acts on. The history
// asks when it records an approval, a freeze override or an analysis decision, not on every reconcile. A read
// that fails records the setter as unknown.
func (r *Reconciler) annotationSetter(ctx context.Context, run *scope) func(annotation string) string {
	var entries []metav1.ManagedFieldsEntry
	read := false
	return func(annotation string) string {
		if !read {
			read = true
			stored := &gitopsv1alpha1.SiteSync{}
			if err := r.APIReader.Get(ctx, client.ObjectKeyFromObject(run.obj), stored); err != nil {
				logf.FromContext(ctx).V(1).Info("reading managedFields for the rollout history", "error", err)
			}
			entries = stored.ManagedFields
		}
		return fieldManagerOf(entries, annotation)
	}
}

// fieldManagerOf is the manager of the newest managedFields entry that owns metadata.annotations[key]; empty
// when none does.
func fieldManagerOf(entries []metav1.ManagedFieldsEntry, key string) string {
	var who string
	var newest *metav1.Time
	for _, e := range entries {
		if e.FieldsV1 == nil || e.Subresource != "" {
			continue
		}
		var fields struct {
			Metadata struct {
				Annotations map[string]json.RawMessage `json:"f:annotations"`
			} `json:"f:metadata"`
		}
		if json.Unmarshal(e.FieldsV1.GetRawBytes(), &fields) != nil {
			continue
		}
		if _, ok := fields.Metadata.Annotations["f:"+key]; !ok {
			continue
		}
		if who == "" || (e.Time != nil && (newest == nil || newest.Before(e.Time))) {
			who, newest = e.Manager, e.Time
		}
	}
	return who
}
