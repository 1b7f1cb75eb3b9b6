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
	"sigs.k8s.io/controller-runtime/pkg/client"
)

func TestGuestbookScaleUpAndDown(t *testing.T) {
	g := NewWithT(t)
	ctx := context.Background()
	gb, pods := startWithActive(t, "scale", 2)
	key := client.ObjectKey{Namespace: gb.Namespace, Name: gb.Name}

	for _, size := range []int32{5, 1, 3} {
		patchSize(t, gb, size)
		g.Eventually(func(g Gomega) {
			d := &appsv1.Deployment{}
			g.Expect(k8s.Get(ctx, key, d)).To(Succeed())
			g.Expect(d.Spec.Replicas).To(HaveValue(Equal(size)))
		}, eventually).Should(Succeed())
	}

	// The ReplicaSet's scale-down would remove a standby (the active pod carries a deletion cost); play it.
	p := &corev1.Pod{}
	g.Expect(k8s.Get(ctx, client.ObjectKey{Namespace: gb.Namespace, Name: pods[0]}, p)).To(Succeed())
	g.Expect(p.Annotations).To(HaveKeyWithValue(podDeletionCost, activeDeletionCost))
	g.Expect(k8s.Delete(ctx, &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: gb.Namespace,
		Name: pods[1]}})).To(Succeed())
	g.Eventually(func(g Gomega) {
		got := getGuestbook(g, gb)
		g.Expect(got.Status.Active).To(Equal(pods[0]))
		g.Expect(got.Status.Standby).To(BeEmpty())
		g.Expect(got.Status.ReadyReplicas).To(BeEquivalentTo(1))
	}, eventually).Should(Succeed())

	// Scaling up: new pods join as standbys, the active pod stays.
	more := createPodsNamed(t, gb, "scale-q", 2)
	g.Eventually(func(g Gomega) {
		g.Expect(selectedPods(g, gb.Namespace, gb.Name)).To(Equal([]string{pods[0]}))
		g.Expect(selectedPods(g, gb.Namespace, "scale-standby")).To(Equal(more))
		g.Expect(getGuestbook(g, gb).Status.ReadyReplicas).To(BeEquivalentTo(3))
	}, eventually).Should(Succeed())
}
