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
	"testing"

	. "github.com/onsi/gomega"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	webappv1 "github.com/siteops/siteops/apis/webapp/v1"
)

// expectControlledBy checks obj has exactly one controller owner reference, to gb, that blocks its deletion.
func expectControlledBy(g Gomega, obj metav1.Object, gb *webappv1.Guestbook) {
	ref := metav1.GetControllerOf(obj)
	g.Expect(ref).NotTo(BeNil(), "%s has no controller", obj.GetName())
	g.Expect(ref.APIVersion).To(Equal(webappv1.GroupVersion.String()))
	g.Expect(ref.Kind).To(Equal("Guestbook"))
	g.Expect(ref.Name).To(Equal(gb.Name))
	g.Expect(ref.UID).To(Equal(gb.UID))
	g.Expect(ref.BlockOwnerDeletion).To(HaveValue(BeTrue()))
}

func TestGuestbookCreatesOwnedDeploymentAndServices(t *testing.T) {
	g := NewWithT(t)
	ctx := context.Background()
	ns := newNamespace(t)
	cm := createConfigMap(t, ns, "cfg", map[string]string{"title": "hello"})
	gb := createGuestbook(t, ns, "shop", 3, "cfg")

	d := &appsv1.Deployment{}
	g.Eventually(func() error {
		return k8s.Get(ctx, client.ObjectKey{Namespace: ns, Name: "shop"}, d)
	}, eventually).Should(Succeed())
	expectControlledBy(g, d, gb)
	g.Expect(d.Labels).To(HaveKeyWithValue(webappv1.LabelGuestbook, "shop"))
	g.Expect(d.Spec.Replicas).To(HaveValue(BeEquivalentTo(3)))
	g.Expect(d.Spec.Selector.MatchLabels).To(Equal(map[string]string{webappv1.LabelGuestbook: "shop"}))
	tpl := d.Spec.Template
	g.Expect(tpl.Labels).To(HaveKeyWithValue(webappv1.LabelGuestbook, "shop"))
	g.Expect(tpl.Labels).NotTo(HaveKey(webappv1.LabelRole), "the role is the controller's to set on pods")
	g.Expect(tpl.Annotations).To(HaveKeyWithValue(webappv1.AnnotationConfigHash, configHash(cm)))
	g.Expect(tpl.Spec.Containers).To(HaveLen(1))
	c := tpl.Spec.Containers[0]
	g.Expect(c.Image).To(Equal(webappv1.DefaultImage), "the CRD defaults the image")
	g.Expect(c.Ports).To(ConsistOf(HaveField("ContainerPort", webappv1.DefaultPort)))
	g.Expect(c.Env).To(ContainElement(corev1.EnvVar{Name: "GUESTBOOK_ALIAS", Value: "Address"}))
	g.Expect(c.VolumeMounts).To(ContainElement(HaveField("MountPath", configMountPath)))
	g.Expect(tpl.Spec.Volumes).To(ContainElement(HaveField("VolumeSource.ConfigMap.Name", "cfg")))
	g.Expect(c.ReadinessProbe).NotTo(BeNil())

	for name, role := range map[string]string{"shop": webappv1.RoleActive, "shop-standby": webappv1.RoleStandby} {
		svc := &corev1.Service{}
		g.Eventually(func() error {
			return k8s.Get(ctx, client.ObjectKey{Namespace: ns, Name: name}, svc)
		}, eventually).Should(Succeed())
		expectControlledBy(g, svc, gb)
		g.Expect(svc.Spec.Selector).To(Equal(map[string]string{webappv1.LabelGuestbook: "shop", webappv1.LabelRole: role}))
		g.Expect(svc.Spec.Ports).To(ConsistOf(And(HaveField("Port", webappv1.DefaultPort),
			HaveField("TargetPort.StrVal", "http"))))
	}

	// No pods yet (envtest runs no ReplicaSet controller): nothing can be active.
	g.Eventually(func(g Gomega) {
		got := getGuestbook(g, gb)
		g.Expect(got.Status.ObservedGeneration).To(Equal(got.Generation))
		g.Expect(condition(got, webappv1.ConditionAvailable)).To(And(
			HaveField("Status", metav1.ConditionFalse), HaveField("Reason", webappv1.ReasonNoReadyPod)))
		g.Expect(condition(got, webappv1.ConditionDegraded)).To(HaveField("Reason", webappv1.ReasonNoReadyPod))
		g.Expect(condition(got, webappv1.ConditionProgressing)).To(HaveField("Status", metav1.ConditionTrue))
	}, eventually).Should(Succeed())
}

func TestGuestbookPodsGetRolesAndStatus(t *testing.T) {
	g := NewWithT(t)
	ns := newNamespace(t)
	cm := createConfigMap(t, ns, "cfg", map[string]string{"title": "hello"})
	gb := createGuestbook(t, ns, "blog", 3, "cfg")
	pods := createPodsWithHash(t, gb, 3, configHash(cm))

	g.Eventually(func(g Gomega) {
		g.Expect(selectedPods(g, ns, "blog")).To(Equal([]string{pods[0]}), "the oldest Ready pod is active")
		g.Expect(selectedPods(g, ns, "blog-standby")).To(Equal(pods[1:]))
		got := getGuestbook(g, gb)
		g.Expect(got.Status.Active).To(Equal(pods[0]))
		g.Expect(got.Status.Standby).To(Equal(pods[1:]))
		g.Expect(got.Status.ReadyReplicas).To(BeEquivalentTo(3))
		g.Expect(condition(got, webappv1.ConditionAvailable)).To(HaveField("Status", metav1.ConditionTrue))
		g.Expect(condition(got, webappv1.ConditionDegraded)).To(HaveField("Status", metav1.ConditionFalse))
		g.Expect(condition(got, webappv1.ConditionProgressing)).To(And(
			HaveField("Status", metav1.ConditionFalse), HaveField("Reason", webappv1.ReasonRolloutComplete)))
	}, eventually).Should(Succeed())
	g.Eventually(func(g Gomega) {
		g.Expect(eventsWithReason(g, gb, webappv1.EventActiveChanged)).To(HaveLen(1))
	}, eventually).Should(Succeed())
}

// TestGuestbookRepairsDriftOfItsObjects changes what the controller applied behind its back: the Service
// selector and the Deployment's replicas are put back.
func TestGuestbookRepairsDriftOfItsObjects(t *testing.T) {
	g := NewWithT(t)
	ctx := context.Background()
	ns := newNamespace(t)
	createConfigMap(t, ns, "cfg", map[string]string{"k": "v"})
	createGuestbook(t, ns, "drift", 2, "cfg")
	key := client.ObjectKey{Namespace: ns, Name: "drift"}
	svc, d := &corev1.Service{}, &appsv1.Deployment{}
	g.Eventually(func(g Gomega) {
		g.Expect(k8s.Get(ctx, key, svc)).To(Succeed())
		g.Expect(k8s.Get(ctx, key, d)).To(Succeed())
	}, eventually).Should(Succeed())

	svc.Spec.Selector = map[string]string{"app": "someone-else"}
	g.Expect(k8s.Update(ctx, svc)).To(Succeed())
	d.Spec.Replicas = ptr.To[int32](7)
	g.Expect(k8s.Update(ctx, d)).To(Succeed())

	g.Eventually(func(g Gomega) {
		g.Expect(k8s.Get(ctx, key, svc)).To(Succeed())
		g.Expect(svc.Spec.Selector).To(Equal(map[string]string{webappv1.LabelGuestbook: "drift",
			webappv1.LabelRole: webappv1.RoleActive}))
		g.Expect(k8s.Get(ctx, key, d)).To(Succeed())
		g.Expect(d.Spec.Replicas).To(HaveValue(BeEquivalentTo(2)))
	}, eventually).Should(Succeed())
}
