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
	"maps"
	"slices"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/types"
	corev1ac "k8s.io/client-go/applyconfigurations/core/v1"
	metav1ac "k8s.io/client-go/applyconfigurations/meta/v1"
	"k8s.io/utils/ptr"
)

// serviceUpToDate reports whether the cached Service already holds every field want applies: its labels, its
// controlling owner, its type, its whole selector and its ports. Fields others added (labels, ports) do not
// matter, as an apply would keep them too. A Service that cannot be read is not up to date.
func (r *Reconciler) serviceUpToDate(ctx context.Context, want *corev1ac.ServiceApplyConfiguration) bool {
	cur := &corev1.Service{}
	if err := r.Get(ctx, types.NamespacedName{Namespace: ptr.Deref(want.Namespace, ""), Name: ptr.Deref(want.Name, "")}, cur); err != nil {
		return false
	}
	return labels.SelectorFromSet(want.Labels).Matches(labels.Set(cur.Labels)) && hasOwners(cur, want.OwnerReferences) &&
		want.Spec != nil && cur.Spec.Type == ptr.Deref(want.Spec.Type, "") && maps.Equal(cur.Spec.Selector, want.Spec.Selector) &&
		hasPorts(cur.Spec.Ports, want.Spec.Ports)
}

// hasOwners reports whether cur has every owner reference of want, field for field.
func hasOwners(cur *corev1.Service, want []metav1ac.OwnerReferenceApplyConfiguration) bool {
	for _, w := range want {
		if !slices.ContainsFunc(cur.OwnerReferences, func(o metav1.OwnerReference) bool {
			return o.UID == ptr.Deref(w.UID, "") && o.APIVersion == ptr.Deref(w.APIVersion, "") && o.Kind == ptr.Deref(w.Kind, "") &&
				o.Name == ptr.Deref(w.Name, "") && ptr.Deref(o.Controller, false) == ptr.Deref(w.Controller, false) &&
				ptr.Deref(o.BlockOwnerDeletion, false) == ptr.Deref(w.BlockOwnerDeletion, false)
		}) {
			return false
		}
	}
	return true
}

// hasPorts reports whether have holds every port of want, field for field.
func hasPorts(have []corev1.ServicePort, want []corev1ac.ServicePortApplyConfiguration) bool {
	for _, w := range want {
		if w.TargetPort == nil || !slices.ContainsFunc(have, func(p corev1.ServicePort) bool {
			return p.Name == ptr.Deref(w.Name, "") && p.Protocol == ptr.Deref(w.Protocol, "") &&
				p.Port == ptr.Deref(w.Port, 0) && p.TargetPort == *w.TargetPort
		}) {
			return false
		}
	}
	return true
}
