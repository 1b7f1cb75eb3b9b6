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
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	webappv1 "github.com/siteops/siteops/apis/webapp/v1"
)

func TestGuestbookConfigMapMissingThenCreated(t *testing.T) {
	g := NewWithT(t)
	ctx := context.Background()
	ns := newNamespace(t)
	gb := createGuestbook(t, ns, "wiki", 2, "later")

	g.Eventually(func(g Gomega) {
		got := getGuestbook(g, gb)
		g.Expect(condition(got, webappv1.ConditionDegraded)).To(And(
			HaveField("Status", metav1.ConditionTrue), HaveField("Reason", webappv1.ReasonConfigMapMissing),
			HaveField("Message", ContainSubstring(`"later"`))))
		g.Expect(condition(got, webappv1.ConditionAvailable)).To(HaveField("Reason", webappv1.ReasonConfigMapMissing))
		g.Expect(eventsWithReason(g, gb, webappv1.EventConfigMapMissing)).To(HaveLen(1))
	}, eventually).Should(Succeed())
	// The Services exist (they need no config), the Deployment waits for the ConfigMap.
	g.Expect(k8s.Get(ctx, client.ObjectKey{Namespace: ns, Name: "wiki"}, &corev1.Service{})).To(Succeed())
	err := k8s.Get(ctx, client.ObjectKey{Namespace: ns, Name: "wiki"}, &appsv1.Deployment{})
	g.Expect(apierrors.IsNotFound(err)).To(BeTrue(), "got %v", err)

	// A status patch of the Guestbook's own (another reconcile) must not repeat the event: touch the spec.
	patchSize(t, gb, 3)
	g.Eventually(func(g Gomega) {
		g.Expect(getGuestbook(g, gb).Status.ObservedGeneration).To(BeEquivalentTo(2))
	}, eventually).Should(Succeed())

	cm := createConfigMap(t, ns, "later", map[string]string{"k": "v"})
	d := &appsv1.Deployment{}
	g.Eventually(func(g Gomega) {
		g.Expect(k8s.Get(ctx, client.ObjectKey{Namespace: ns, Name: "wiki"}, d)).To(Succeed())
		g.Expect(d.Spec.Template.Annotations).To(HaveKeyWithValue(webappv1.AnnotationConfigHash, configHash(cm)))
		got := getGuestbook(g, gb)
		g.Expect(condition(got, webappv1.ConditionDegraded).Reason).NotTo(Equal(webappv1.ReasonConfigMapMissing))
		g.Expect(condition(got, webappv1.ConditionProgressing).Reason).To(Equal(webappv1.ReasonRollingOut))
		g.Expect(eventsWithReason(g, gb, webappv1.EventConfigMapFound)).To(HaveLen(1))
	}, eventually).Should(Succeed())
	g.Expect(eventsWithReason(g, gb, webappv1.EventConfigMapMissing)).To(HaveLen(1), "one event per missing episode")
}

func TestGuestbookConfigMapChangeRollsPodTemplate(t *testing.T) {
	g := NewWithT(t)
	ctx := context.Background()
	ns := newNamespace(t)
	cm := createConfigMap(t, ns, "cfg", map[string]string{"greeting": "hi"})
	createGuestbook(t, ns, "news", 1, "cfg")

	d := &appsv1.Deployment{}
	key := client.ObjectKey{Namespace: ns, Name: "news"}
	first := configHash(cm)
	g.Eventually(func(g Gomega) {
		g.Expect(k8s.Get(ctx, key, d)).To(Succeed())
		g.Expect(d.Spec.Template.Annotations).To(HaveKeyWithValue(webappv1.AnnotationConfigHash, first))
	}, eventually).Should(Succeed())

	cm.Data["greeting"] = "hello"
	g.Expect(k8s.Update(ctx, cm)).To(Succeed())
	second := configHash(cm)
	g.Expect(second).NotTo(Equal(first))
	g.Eventually(func(g Gomega) {
		g.Expect(k8s.Get(ctx, key, d)).To(Succeed())
		g.Expect(d.Spec.Template.Annotations).To(HaveKeyWithValue(webappv1.AnnotationConfigHash, second))
	}, eventually).Should(Succeed())

	// A change of the ConfigMap's metadata only is no config change: the template keeps its hash.
	cm.Labels = map[string]string{"touched": "yes"}
	g.Expect(k8s.Update(ctx, cm)).To(Succeed())
	g.Consistently(func(g Gomega) {
		g.Expect(k8s.Get(ctx, key, d)).To(Succeed())
		g.Expect(d.Spec.Template.Annotations).To(HaveKeyWithValue(webappv1.AnnotationConfigHash, second))
	}, "2s").Should(Succeed())
}
