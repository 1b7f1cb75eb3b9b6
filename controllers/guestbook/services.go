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

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	corev1ac "k8s.io/client-go/applyconfigurations/core/v1"

	webappv1 "github.com/siteops/siteops/apis/webapp/v1"
)

// standbyServiceName names the Service in front of a Guestbook's standby pods.
func standbyServiceName(gb *webappv1.Guestbook) string { return gb.Name + "-standby" }

// reconcileServices applies the <name> Service, which selects the active pod only, and the <name>-standby
// Service, which selects the standbys. The selectors never change: promotion moves the role label between
// pods, so the endpoints follow the label without touching the Services. A selector is an atomic map, so an
// apply replaces it whole: keys someone else added go away. A Service the cache already shows as applied is
// not sent again: on most reconciles neither Service changes, and an apply of the same fields would still cost
// the apiserver a request.
func (r *Reconciler) reconcileServices(ctx context.Context, st *scope) error {
	for _, svc := range []*corev1ac.ServiceApplyConfiguration{
		desiredService(st.gb, st.gb.Name, webappv1.RoleActive),
		desiredService(st.gb, standbyServiceName(st.gb), webappv1.RoleStandby),
	} {
		if appliedAlready(ctx, r, &corev1.Service{}, svc, corev1ac.ExtractService) {
			continue
		}
		if err := r.apply(ctx, svc); err != nil {
			return fmt.Errorf("applying Service %s: %w", *svc.Name, err)
		}
	}
	return nil
}

// serviceSelector selects the Guestbook's pods of one role.
func serviceSelector(gb *webappv1.Guestbook, role string) map[string]string {
	sel := selectorLabels(gb)
	sel[webappv1.LabelRole] = role
	return sel
}

// desiredService is a ClusterIP Service named name exposing the Guestbook's port on the pods of role.
func desiredService(gb *webappv1.Guestbook, name, role string) *corev1ac.ServiceApplyConfiguration {
	port := gb.Spec.Port
	if port == 0 {
		port = webappv1.DefaultPort
	}
	return corev1ac.Service(name, gb.Namespace).
		WithLabels(objectLabels(gb)).
		WithOwnerReferences(ownerRef(gb)).
		WithSpec(corev1ac.ServiceSpec().
			WithType(corev1.ServiceTypeClusterIP).
			WithSelector(serviceSelector(gb, role)).
			WithPorts(corev1ac.ServicePort().
				WithName("http").
				WithProtocol(corev1.ProtocolTCP).
				WithPort(port).
				WithTargetPort(intstr.FromString("http"))))
}
