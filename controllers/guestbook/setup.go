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
	"fmt"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	webappv1 "github.com/siteops/siteops/apis/webapp/v1"
	"github.com/siteops/siteops/internal/kit"
)

// configMapNameField indexes Guestbooks by spec.configMapName, to map a ConfigMap event to its Guestbooks.
const configMapNameField = ".spec.configMapName"

// SetupWithManager registers the controller: it owns Deployments and Services, and watches the pods (mapped
// by their LabelGuestbook label) and the ConfigMaps (metadata only, mapped through the configMapName index) of
// Guestbooks. Every change that matters arrives as an event; nothing polls.
func (r *Reconciler) SetupWithManager(mgr ctrl.Manager) error {
	if r.APIReader == nil {
		r.APIReader = mgr.GetAPIReader()
	}
	warmApplyExtraction()
	if err := mgr.GetFieldIndexer().IndexField(context.Background(), &webappv1.Guestbook{}, configMapNameField,
		func(o client.Object) []string {
			return []string{o.(*webappv1.Guestbook).Spec.ConfigMapName}
		}); err != nil {
		return fmt.Errorf("indexing Guestbooks by %s: %w", configMapNameField, err)
	}
	b := ctrl.NewControllerManagedBy(mgr).
		For(&webappv1.Guestbook{}).
		Owns(&appsv1.Deployment{}).
		Owns(&corev1.Service{}).
		Watches(&corev1.Pod{}, handler.EnqueueRequestsFromMapFunc(podToGuestbook),
			builder.WithPredicates(podRoleInputsChanged())).
		WatchesMetadata(&corev1.ConfigMap{}, handler.EnqueueRequestsFromMapFunc(r.configMapToGuestbooks)).
		Named("guestbook")
	if err := kit.Complete(r.Complete, b, controller.Options{}, &webappv1.GuestbookList{}, r); err != nil {
		return fmt.Errorf("building the Guestbook controller: %w", err)
	}
	return nil
}

// podToGuestbook maps a pod to the Guestbook named by its LabelGuestbook label.
func podToGuestbook(_ context.Context, o client.Object) []reconcile.Request {
	name := o.GetLabels()[webappv1.LabelGuestbook]
	if name == "" {
		return nil
	}
	return []reconcile.Request{{NamespacedName: types.NamespacedName{Namespace: o.GetNamespace(), Name: name}}}
}

// configMapToGuestbooks maps a ConfigMap to the Guestbooks of its namespace that name it.
func (r *Reconciler) configMapToGuestbooks(ctx context.Context, o client.Object) []reconcile.Request {
	list := &webappv1.GuestbookList{}
	if err := r.List(ctx, list, client.InNamespace(o.GetNamespace()),
		client.MatchingFields{configMapNameField: o.GetName()}); err != nil {
		ctrl.LoggerFrom(ctx).Error(err, "listing Guestbooks of ConfigMap", "configMap", client.ObjectKeyFromObject(o))
		return nil
	}
	reqs := make([]reconcile.Request, 0, len(list.Items))
	for i := range list.Items {
		reqs = append(reqs, reconcile.Request{NamespacedName: client.ObjectKeyFromObject(&list.Items[i])})
	}
	return reqs
}

// podRoleInputsChanged passes pod creations and deletions, and the updates that change what the controller
// reads from a pod (labels, config hash, readiness, deletion, phase), not the frequent container status
// updates that change none of them.
func podRoleInputsChanged() predicate.Predicate {
	return predicate.Funcs{
		UpdateFunc: func(e event.UpdateEvent) bool {
			oldPod, ok1 := e.ObjectOld.(*corev1.Pod)
			newPod, ok2 := e.ObjectNew.(*corev1.Pod)
			if !ok1 || !ok2 {
				return true
			}
			return podKey(oldPod) != podKey(newPod)
		},
	}
}

// podFacts is what the controller reads from a pod.
type podFacts struct {
	guestbook, role, configHash string
	servable, deleting          bool
	phase                       corev1.PodPhase
}

// podKey extracts a pod's podFacts.
func podKey(p *corev1.Pod) podFacts {
	return podFacts{
		guestbook:  p.Labels[webappv1.LabelGuestbook],
		role:       p.Labels[webappv1.LabelRole],
		configHash: p.Annotations[webappv1.AnnotationConfigHash],
		servable:   servable(p),
		deleting:   p.DeletionTimestamp != nil,
		phase:      p.Status.Phase,
	}
}
