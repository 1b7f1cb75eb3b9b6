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
	"sync"
	"testing"

	. "github.com/onsi/gomega"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/tools/events"
	"k8s.io/utils/clock"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	webappv1 "github.com/siteops/siteops/apis/webapp/v1"
)

// applyCounter is a client that counts the server-side applies it sends, by kind and name.
type applyCounter struct {
	client.Client
	mu     sync.Mutex
	byName map[string]int
}

func (c *applyCounter) Apply(ctx context.Context, obj runtime.ApplyConfiguration, opts ...client.ApplyOption) error {
	if named, ok := obj.(interface {
		GetName() *string
		GetKind() *string
	}); ok && named.GetName() != nil && named.GetKind() != nil {
		c.mu.Lock()
		c.byName[*named.GetKind()+" "+*named.GetName()]++
		c.mu.Unlock()
	}
	return c.Client.Apply(ctx, obj, opts...)
}

// Take returns the counts so far and starts again from zero.
func (c *applyCounter) Take() map[string]int {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := c.byName
	c.byName = map[string]int{}
	return out
}

// TestGuestbookAppliesItsChildrenOnlyWhenTheyDiffer reconciles by hand, in a namespace no manager of the
// package watches: the first reconcile applies the Deployment and both Services; the next sends no apply, as
// nothing differs. A selector someone changed is applied back, and a deleted Service is created again, each with
// one apply of that Service; a new size is one apply of the Deployment, and so are replicas someone else set.
func TestGuestbookAppliesItsChildrenOnlyWhenTheyDiffer(t *testing.T) {
	g := NewWithT(t)
	ctx := context.Background()
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: unmanagedAppliesNamespace}}
	g.Expect(k8s.Create(ctx, ns)).To(Succeed())
	t.Cleanup(func() { _ = k8s.Delete(context.Background(), ns) })
	createConfigMap(t, ns.Name, "cfg", map[string]string{"k": "v"})
	gb := createGuestbook(t, ns.Name, "applies", 1, "cfg")
	req := reconcile.Request{NamespacedName: client.ObjectKeyFromObject(gb)}
	counter := &applyCounter{Client: k8s, byName: map[string]int{}}
	r := &Reconciler{Client: counter, Scheme: env.Scheme, Recorder: &events.FakeRecorder{}, Clock: clock.RealClock{}}
	reconcileOnce := func() map[string]int {
		_, err := r.Reconcile(ctx, req)
		g.Expect(err).NotTo(HaveOccurred())
		return counter.Take()
	}

	g.Expect(reconcileOnce()).To(Equal(map[string]int{"Deployment applies": 1, "Service applies": 1,
		"Service applies-standby": 1}),
		"the Deployment and both Services")
	g.Expect(reconcileOnce()).To(BeEmpty(), "nothing: the Deployment and both Services are as applied")

	active := &corev1.Service{}
	g.Expect(k8s.Get(ctx, client.ObjectKey{Namespace: ns.Name, Name: "applies"}, active)).To(Succeed())
	active.Spec.Selector[webappv1.LabelRole] = webappv1.RoleStandby
	g.Expect(k8s.Update(ctx, active)).To(Succeed())
	g.Expect(reconcileOnce()).To(Equal(map[string]int{"Service applies": 1}), "the changed Service")
	g.Expect(k8s.Get(ctx, client.ObjectKey{Namespace: ns.Name, Name: "applies"}, active)).To(Succeed())
	g.Expect(active.Spec.Selector).To(HaveKeyWithValue(webappv1.LabelRole, webappv1.RoleActive), "the drift is put back")

	standbySvc := &corev1.Service{ObjectMeta: metav1.ObjectMeta{Namespace: ns.Name, Name: "applies-standby"}}
	g.Expect(k8s.Delete(ctx, standbySvc)).To(Succeed())
	g.Expect(reconcileOnce()).To(Equal(map[string]int{"Service applies-standby": 1}), "the deleted Service")
	g.Expect(k8s.Get(ctx, client.ObjectKeyFromObject(standbySvc), &corev1.Service{})).To(Succeed())

	g.Expect(k8s.Patch(ctx, gb, client.RawPatch("application/merge-patch+json",
		[]byte(`{"spec":{"size":2}}`)))).To(Succeed())
	g.Expect(reconcileOnce()).To(Equal(map[string]int{"Deployment applies": 1}), "the new size")
	g.Expect(reconcileOnce()).To(BeEmpty())

	dep := &appsv1.Deployment{}
	g.Expect(k8s.Get(ctx, client.ObjectKey{Namespace: ns.Name, Name: "applies"}, dep)).To(Succeed())
	g.Expect(dep.Spec.Replicas).To(HaveValue(BeEquivalentTo(2)))
	dep.Spec.Replicas = ptr.To[int32](5)
	g.Expect(k8s.Update(ctx, dep, client.FieldOwner("someone-else"))).To(Succeed())
	g.Expect(reconcileOnce()).To(Equal(map[string]int{"Deployment applies": 1}), "replicas someone else set")
	g.Expect(k8s.Get(ctx, client.ObjectKeyFromObject(dep), dep)).To(Succeed())
	g.Expect(dep.Spec.Replicas).To(HaveValue(BeEquivalentTo(2)), "the drift is put back")
}
