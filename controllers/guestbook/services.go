package guestbook

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/intstr"
	corev1ac "k8s.io/client-go/applyconfigurations/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	webappv1 "github.com/siteops/siteops/apis/webapp/v1"
)

// standbyServiceName names the Service in front of a Guestbook's standby pods.
func standbyServiceName(gb *webappv1.Guestbook) string { return gb.Name + "-standby" }

// reconcileServices creates or patches the <name> Service, which selects the active pod only, and the
// <name>-standby Service, which selects the standbys. The selectors never change: promotion moves the role
// label between pods, so the endpoints follow the label without touching the Services.
func (r *Reconciler) reconcileServices(ctx context.Context, st *reconcileState) error {
	for _, svc := range []*corev1ac.ServiceApplyConfiguration{
		desiredService(st.gb, st.gb.Name, webappv1.RoleActive),
		desiredService(st.gb, standbyServiceName(st.gb), webappv1.RoleStandby),
	} {
		key := types.NamespacedName{Namespace: st.gb.Namespace, Name: *svc.Name}
		removals := r.extraSelectorKeys(ctx, key, svc.Spec.Selector)
		if err := r.ensureObject(ctx, func() client.Object { return &corev1.Service{} }, key, svc, removals); err != nil {
			return fmt.Errorf("writing Service %s: %w", *svc.Name, err)
		}
	}
	return nil
}

// extraSelectorKeys returns a merge patch part deleting the selector keys the cached Service key has beyond
// want: the controller owns the whole selector, and a merge patch alone would only add keys.
func (r *Reconciler) extraSelectorKeys(ctx context.Context, key types.NamespacedName, want map[string]string) map[string]any {
	cur := &corev1.Service{}
	if r.Get(ctx, key, cur) != nil {
		return nil
	}
	extra := map[string]any{}
	for k := range cur.Spec.Selector {
		if _, ok := want[k]; !ok {
			extra[k] = nil
		}
	}
	if len(extra) == 0 {
		return nil
	}
	return map[string]any{"spec": map[string]any{"selector": extra}}
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
