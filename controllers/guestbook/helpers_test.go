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
	"slices"
	"testing"
	"time"

	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"sigs.k8s.io/controller-runtime/pkg/client"

	webappv1 "github.com/siteops/siteops/apis/webapp/v1"
)

// eventually is how long an envtest expectation may take on a busy machine; it bounds waiting, it does not
// assert on timing.
const eventually = 60 * time.Second

// newNamespace creates a namespace for one test.
func newNamespace(t *testing.T) string {
	t.Helper()
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{GenerateName: "gb-"}}
	NewWithT(t).Expect(k8s.Create(context.Background(), ns)).To(Succeed())
	t.Cleanup(func() { _ = k8s.Delete(context.Background(), ns) })
	return ns.Name
}

// createConfigMap creates ConfigMap name with data in ns.
func createConfigMap(t *testing.T, ns, name string, data map[string]string) *corev1.ConfigMap {
	t.Helper()
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}, Data: data}
	NewWithT(t).Expect(k8s.Create(context.Background(), cm)).To(Succeed())
	return cm
}

// createGuestbook creates a Guestbook of size pods configured from configMap.
func createGuestbook(t *testing.T, ns, name string, size int32, configMap string) *webappv1.Guestbook {
	t.Helper()
	gb := &webappv1.Guestbook{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name},
		Spec:       webappv1.GuestbookSpec{Size: size, ConfigMapName: configMap, Alias: webappv1.AliasAddress},
	}
	NewWithT(t).Expect(k8s.Create(context.Background(), gb)).To(Succeed())
	return gb
}

// getGuestbook reads a Guestbook back.
func getGuestbook(g Gomega, gb *webappv1.Guestbook) *webappv1.Guestbook {
	out := &webappv1.Guestbook{}
	g.Expect(k8s.Get(context.Background(), client.ObjectKeyFromObject(gb), out)).To(Succeed())
	return out
}

// createPods plays the ReplicaSet envtest does not run: it creates n pods of the Guestbook, named
// <gb>-p<i> so the name order is the creation order, and marks them Ready.
func createPods(t *testing.T, gb *webappv1.Guestbook, n int) []string {
	t.Helper()
	return createPodsWithHash(t, gb, n, "")
}

// createPodsWithHash is createPods with the pod template's config-hash annotation on each pod.
func createPodsWithHash(t *testing.T, gb *webappv1.Guestbook, n int, hash string) []string {
	t.Helper()
	return createPodsFull(t, gb, gb.Name+"-p", n, hash)
}

// createPodsNamed is createPods with the names <prefix><i>.
func createPodsNamed(t *testing.T, gb *webappv1.Guestbook, prefix string, n int) []string {
	t.Helper()
	return createPodsFull(t, gb, prefix, n, "")
}

// createPodsFull creates n Ready pods of gb named <prefix><i> with the config-hash annotation hash.
func createPodsFull(t *testing.T, gb *webappv1.Guestbook, prefix string, n int, hash string) []string {
	t.Helper()
	var names []string
	for i := range n {
		name := fmt.Sprintf("%s%d", prefix, i)
		pod := &corev1.Pod{
			ObjectMeta: metav1.ObjectMeta{Namespace: gb.Namespace, Name: name,
				Labels:      map[string]string{webappv1.LabelGuestbook: gb.Name},
				Annotations: map[string]string{webappv1.AnnotationConfigHash: hash}},
			Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "guestbook", Image: webappv1.DefaultImage}}},
		}
		NewWithT(t).Expect(k8s.Create(context.Background(), pod)).To(Succeed())
		setReady(t, gb.Namespace, name, true)
		names = append(names, name)
	}
	return names
}

// setReady sets a pod's Ready condition through the status subresource, as the kubelet would.
func setReady(t *testing.T, ns, name string, ready bool) {
	t.Helper()
	NewWithT(t).Expect(patchReady(context.Background(), ns, name, ready)).To(Succeed())
}

// patchReady merges a Ready condition (and phase Running) into a pod's status.
func patchReady(ctx context.Context, ns, name string, ready bool) error {
	status := corev1.ConditionFalse
	if ready {
		status = corev1.ConditionTrue
	}
	pod := &corev1.Pod{}
	if err := k8s.Get(ctx, client.ObjectKey{Namespace: ns, Name: name}, pod); err != nil {
		return err
	}
	before := pod.DeepCopy()
	pod.Status.Phase = corev1.PodRunning
	pod.Status.Conditions = []corev1.PodCondition{{Type: corev1.PodReady, Status: status,
		LastTransitionTime: metav1.Now()}}
	return k8s.Status().Patch(ctx, pod, client.MergeFrom(before))
}

// selectedPods lists the pods a Service's selector matches, sorted: envtest runs no EndpointSlice
// controller, so this is what the endpoints would hold (for Ready pods).
func selectedPods(g Gomega, ns, service string) []string {
	svc := &corev1.Service{}
	g.Expect(k8s.Get(context.Background(), client.ObjectKey{Namespace: ns, Name: service}, svc)).To(Succeed())
	g.Expect(svc.Spec.Selector).NotTo(BeEmpty())
	pods := &corev1.PodList{}
	g.Expect(k8s.List(context.Background(), pods, client.InNamespace(ns),
		client.MatchingLabelsSelector{Selector: labels.SelectorFromSet(svc.Spec.Selector)})).To(Succeed())
	var names []string
	for _, p := range pods.Items {
		names = append(names, p.Name)
	}
	slices.Sort(names)
	return names
}

// activePodNames lists the pods labelled active in ns.
func activePodNames(g Gomega, ns string) []string {
	pods := &corev1.PodList{}
	g.Expect(k8s.List(context.Background(), pods, client.InNamespace(ns),
		client.MatchingLabels{webappv1.LabelRole: webappv1.RoleActive})).To(Succeed())
	var names []string
	for _, p := range pods.Items {
		names = append(names, p.Name)
	}
	slices.Sort(names)
	return names
}

// eventsWithReason lists the events.k8s.io Events of reason about the Guestbook.
func eventsWithReason(g Gomega, gb *webappv1.Guestbook, reason string) []eventsv1.Event {
	list := &eventsv1.EventList{}
	g.Expect(k8s.List(context.Background(), list, client.InNamespace(gb.Namespace))).To(Succeed())
	var out []eventsv1.Event
	for _, e := range list.Items {
		if e.Reason == reason && e.Regarding.Name == gb.Name && e.Regarding.Kind == "Guestbook" {
			out = append(out, e)
		}
	}
	return out
}

// condition returns a Guestbook's condition of type typ, or an empty one.
func condition(gb *webappv1.Guestbook, typ string) metav1.Condition {
	for _, c := range gb.Status.Conditions {
		if c.Type == typ {
			return c
		}
	}
	return metav1.Condition{}
}

// patchSize changes a Guestbook's spec.size.
func patchSize(t *testing.T, gb *webappv1.Guestbook, size int32) {
	t.Helper()
	g := NewWithT(t)
	cur := getGuestbook(g, gb)
	before := cur.DeepCopy()
	cur.Spec.Size = size
	g.Expect(k8s.Patch(context.Background(), cur, client.MergeFrom(before))).To(Succeed())
}
