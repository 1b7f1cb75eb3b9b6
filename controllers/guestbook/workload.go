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
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/intstr"
	appsv1ac "k8s.io/client-go/applyconfigurations/apps/v1"
	corev1ac "k8s.io/client-go/applyconfigurations/core/v1"
	metav1ac "k8s.io/client-go/applyconfigurations/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	webappv1 "github.com/siteops/siteops/apis/webapp/v1"
	"github.com/siteops/siteops/internal/kit"
)

// configMountPath is where the Guestbook's ConfigMap is mounted in every pod.
const configMountPath = "/etc/guestbook"

// reconcileWorkload applies the Guestbook's Deployment when it differs from what the cache holds. It waits (does
// nothing) while the ConfigMap is missing: a new Deployment could not mount it, and an existing one keeps running as it
// is.
//
// The workload is a Deployment, not a StatefulSet: the pods are interchangeable (the ConfigMap is their only
// state), the controller, not the pod's identity, decides which one is active, and the role label it adds to
// pods is outside the Deployment's selector, so the ReplicaSet neither fights nor orphans a relabelled pod.
// A Deployment also rolls a new pod up before an old one goes (maxSurge 1, maxUnavailable 0), so a standby
// is Ready when the active pod is replaced, where a StatefulSet would replace pods one ordinal at a time with
// the old pod gone first.
func (r *Reconciler) reconcileWorkload(ctx context.Context, st *scope) error {
	if !st.configFound {
		return nil
	}
	want := desiredDeployment(st.gb, st.configHash)
	if appliedAlready(ctx, r, &appsv1.Deployment{}, want, appsv1ac.ExtractDeployment) {
		return nil
	}
	if err := r.apply(ctx, want); err != nil {
		return fmt.Errorf("applying Deployment %s: %w", st.gb.Name, err)
	}
	return nil
}

// FieldOwner is the field manager of everything the controller applies. The manager's cache keeps this field
// manager's managedFields entry on Deployments and Services (and drops every other), so that a reconcile can
// tell, without a request, whether its apply would change anything (appliedAlready).
const FieldOwner = "siteops-guestbook"

// apply sends obj as a server-side apply owned by FieldOwner, taking over fields another manager changed
// (the controller owns what it applies: drift is put back). An apply that changes nothing changes nothing on
// the server either.
func (r *Reconciler) apply(ctx context.Context, obj runtime.ApplyConfiguration) error {
	return r.Apply(ctx, obj, client.FieldOwner(FieldOwner), client.ForceOwnership)
}

// selectorLabels select a Guestbook's pods; they never change, as a Deployment's selector cannot.
func selectorLabels(gb *webappv1.Guestbook) map[string]string {
	return map[string]string{webappv1.LabelGuestbook: gb.Name}
}

// objectLabels label everything a Guestbook owns, its pods included, with the Guestbook's shard label
// (apis.ShardLabel) when it has one, so the manager that owns the Guestbook caches them.
func objectLabels(gb *webappv1.Guestbook) map[string]string {
	return kit.InheritShard(gb, map[string]string{
		webappv1.LabelGuestbook:        gb.Name,
		"app.kubernetes.io/name":       "guestbook",
		"app.kubernetes.io/instance":   gb.Name,
		"app.kubernetes.io/managed-by": "siteops",
	})
}

// ownerRef makes gb the controlling owner, so deleting the Guestbook deletes the object.
func ownerRef(gb *webappv1.Guestbook) *metav1ac.OwnerReferenceApplyConfiguration {
	return metav1ac.OwnerReference().
		WithAPIVersion(webappv1.GroupVersion.String()).
		WithKind("Guestbook").
		WithName(gb.Name).
		WithUID(gb.UID).
		WithController(true).
		WithBlockOwnerDeletion(true)
}

// desiredDeployment is the Deployment of size pods running the Guestbook's image with its ConfigMap mounted,
// its alias in GUESTBOOK_ALIAS and the ConfigMap's hash on the pod template.
func desiredDeployment(gb *webappv1.Guestbook, configHash string) *appsv1ac.DeploymentApplyConfiguration {
	image, port, alias := gb.Spec.Image, gb.Spec.Port, gb.Spec.Alias
	if image == "" {
		image = webappv1.DefaultImage
	}
	if port == 0 {
		port = webappv1.DefaultPort
	}
	if alias == "" {
		alias = webappv1.AliasName
	}
	container := corev1ac.Container().
		WithName("guestbook").
		WithImage(image).
		WithPorts(corev1ac.ContainerPort().WithName("http").WithContainerPort(port).WithProtocol(corev1.ProtocolTCP)).
		WithEnv(
			corev1ac.EnvVar().WithName("GUESTBOOK_ALIAS").WithValue(string(alias)),
			corev1ac.EnvVar().WithName("GUESTBOOK_CONFIG_DIR").WithValue(configMountPath),
		).
		WithVolumeMounts(corev1ac.VolumeMount().WithName("config").WithMountPath(configMountPath).WithReadOnly(true)).
		WithReadinessProbe(corev1ac.Probe().
			WithHTTPGet(corev1ac.HTTPGetAction().WithPath("/").WithPort(intstr.FromString("http"))).
			WithPeriodSeconds(2).WithFailureThreshold(2)).
		WithSecurityContext(corev1ac.SecurityContext().
			WithAllowPrivilegeEscalation(false).
			WithRunAsNonRoot(true).
			WithCapabilities(corev1ac.Capabilities().WithDrop("ALL")).
			WithSeccompProfile(corev1ac.SeccompProfile().WithType(corev1.SeccompProfileTypeRuntimeDefault)))

	template := corev1ac.PodTemplateSpec().
		WithLabels(objectLabels(gb)).
		WithAnnotations(map[string]string{webappv1.AnnotationConfigHash: configHash}).
		WithSpec(corev1ac.PodSpec().
			WithContainers(container).
			WithVolumes(corev1ac.Volume().WithName("config").
				WithConfigMap(corev1ac.ConfigMapVolumeSource().WithName(gb.Spec.ConfigMapName))).
			WithSecurityContext(corev1ac.PodSecurityContext().
				WithRunAsNonRoot(true).
				WithSeccompProfile(corev1ac.SeccompProfile().WithType(corev1.SeccompProfileTypeRuntimeDefault))))

	return appsv1ac.Deployment(gb.Name, gb.Namespace).
		WithLabels(objectLabels(gb)).
		WithOwnerReferences(ownerRef(gb)).
		WithSpec(appsv1ac.DeploymentSpec().
			WithReplicas(gb.Spec.Size).
			WithSelector(metav1ac.LabelSelector().WithMatchLabels(selectorLabels(gb))).
			WithStrategy(appsv1ac.DeploymentStrategy().
				WithRollingUpdate(appsv1ac.RollingUpdateDeployment().
					WithMaxSurge(intstr.FromInt32(1)).
					WithMaxUnavailable(intstr.FromInt32(0)))).
			WithRevisionHistoryLimit(3).
			WithTemplate(template))
}
