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
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/event"
	logf "sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	gitopsv1alpha1 "github.com/siteops/siteops/apis/gitops/v1alpha1"
)

// applicationsServed reports whether the cluster serves Argo CD's Application kind. Without it (Argo CD not
// installed) the manager starts all the same and reports delivery as not observed, instead of failing on a
// watch of a kind that does not exist.
func applicationsServed(mapper meta.RESTMapper) (bool, error) {
	_, err := mapper.RESTMapping(applicationGVK().GroupKind(), applicationGVK().Version)
	switch {
	case err == nil:
		return true, nil
	case meta.IsNoMatchError(err):
		return false, nil
	default:
		return false, fmt.Errorf("looking up Argo CD's Application kind: %w", err)
	}
}

// newApplication is an empty Argo CD Application, for watches and patches.
func newApplication() *unstructured.Unstructured {
	u := &unstructured.Unstructured{}
	u.SetGroupVersionKind(applicationGVK())
	return u
}

// siteSyncsOf maps an Application to the SiteSync its gitops.siteops.dev/sitesync label names, in any
// namespace whose SiteSync looks for Applications in the Application's namespace.
func (r *Reconciler) siteSyncsOf(ctx context.Context, app client.Object) []reconcile.Request {
	name := app.GetLabels()[gitopsv1alpha1.LabelSiteSync]
	if name == "" {
		return nil
	}
	list := &gitopsv1alpha1.SiteSyncList{}
	if err := r.List(ctx, list); err != nil {
		logf.FromContext(ctx).Error(err, "listing SiteSyncs for an Application; the interval requeue catches up",
			"application", client.ObjectKeyFromObject(app))
		return nil
	}
	var reqs []reconcile.Request
	for i := range list.Items {
		ss := &list.Items[i]
		if ss.Name == name && ss.DeliveryNamespace() == app.GetNamespace() {
			reqs = append(reqs, reconcile.Request{NamespacedName: client.ObjectKeyFromObject(ss)})
		}
	}
	return reqs
}

// deliveryChanged passes the Applications labelled for a SiteSync, and of their updates only those that
// change what siteops reports (sync status, revision, health, message, the manager Rollout) or the labels:
// Argo CD rewrites an Application's status often.
func deliveryChanged() predicate.Predicate {
	labelled := func(o client.Object) bool { return o.GetLabels()[gitopsv1alpha1.LabelSiteSync] != "" }
	return predicate.Funcs{
		CreateFunc:  func(e event.CreateEvent) bool { return labelled(e.Object) },
		DeleteFunc:  func(e event.DeleteEvent) bool { return labelled(e.Object) },
		GenericFunc: func(event.GenericEvent) bool { return false },
		UpdateFunc: func(e event.UpdateEvent) bool {
			if !labelled(e.ObjectOld) && !labelled(e.ObjectNew) {
				return false
			}
			oldU, ok1 := e.ObjectOld.(*unstructured.Unstructured)
			newU, ok2 := e.ObjectNew.(*unstructured.Unstructured)
			if !ok1 || !ok2 {
				return true
			}
			before, err1 := viewOf(oldU)
			after, err2 := viewOf(newU)
			return err1 != nil || err2 != nil || before != after ||
				oldU.GetLabels()[gitopsv1alpha1.LabelSiteSync] != newU.GetLabels()[gitopsv1alpha1.LabelSiteSync]
		},
	}
}
