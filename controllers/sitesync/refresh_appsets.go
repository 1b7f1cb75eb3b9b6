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
	"fmt"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	gitopsv1alpha1 "github.com/siteops/siteops/apis/gitops/v1alpha1"
)

// appSetRefreshAnnotation asks Argo CD's ApplicationSet controller to run its generators now rather than at
// its next poll (3 minutes for a Git generator).
const appSetRefreshAnnotation = "argocd.argoproj.io/application-set-refresh"

// appSetGVK is Argo CD's ApplicationSet kind.
func appSetGVK() schema.GroupVersionKind {
	return schema.GroupVersionKind{Group: "argoproj.io", Version: "v1alpha1", Kind: "ApplicationSet"}
}

// appSetsSite is the refresh tracker's key for the ApplicationSets of a SiteSync (no site is named so).
const appSetsSite = "/applicationsets"

// refreshApplicationSets asks the ApplicationSets that generate the sites' Applications to look at the
// rendered branch now, when this sync's push wrote the folder of a site that has no Application yet (a new
// site): its Application then appears within seconds. The ApplicationSets are those in the delivery namespace
// labelled gitops.siteops.dev/sitesync=<name>, as base/argocd's is. Once per branch head; without Argo CD's
// ApplicationSet kind it does nothing.
func (r *Reconciler) refreshApplicationSets(ctx context.Context, run *scope) error {
	st := run.obj.Status
	head := st.RenderedRevision
	if !r.deliveryObserved || !run.result.Pushed || head == "" || !newSiteIn(run, head) {
		return nil
	}
	key := client.ObjectKeyFromObject(run.obj)
	if !r.refreshed.first(key, appSetsSite, head) {
		return nil
	}
	list := &unstructured.UnstructuredList{}
	list.SetGroupVersionKind(appSetGVK().GroupVersion().WithKind(appSetGVK().Kind + "List"))
	err := r.APIReader.List(ctx, list, client.InNamespace(run.obj.DeliveryNamespace()),
		client.MatchingLabels{gitopsv1alpha1.LabelSiteSync: run.obj.Name})
	switch {
	case meta.IsNoMatchError(err):
		return nil
	case err != nil:
		r.refreshed.undo(key, appSetsSite)
		return fmt.Errorf("listing the ApplicationSets of the sites: %w", err)
	}
	patch := fmt.Appendf(nil, `{"metadata":{"annotations":{%q:"true"}}}`, appSetRefreshAnnotation)
	for i := range list.Items {
		if err := r.Patch(ctx, &list.Items[i],
			client.RawPatch(types.MergePatchType, patch)); client.IgnoreNotFound(err) != nil {
			r.refreshed.undo(key, appSetsSite)
			return fmt.Errorf("annotating ApplicationSet %s/%s: %w", list.Items[i].GetNamespace(), list.Items[i].GetName(), err)
		}
	}
	return nil
}

// newSiteIn reports whether a site whose folder the commit head changed has no Application.
func newSiteIn(run *scope, head string) bool {
	for _, s := range run.obj.Status.Sites {
		if _, ok := run.apps[s.Name]; !ok && s.RenderedCommit == head {
			return true
		}
	}
	return false
}
