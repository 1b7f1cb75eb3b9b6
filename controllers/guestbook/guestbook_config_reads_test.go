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
	"sync/atomic"
	"testing"

	. "github.com/onsi/gomega"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/events"
	"k8s.io/utils/clock"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	webappv1 "github.com/siteops/siteops/apis/webapp/v1"
	"github.com/siteops/siteops/internal/standby"
)

// countingReader counts the reads that reach the apiserver through it.
type countingReader struct {
	client.Reader
	reads atomic.Int32
}

func (c *countingReader) Get(ctx context.Context, key client.ObjectKey, obj client.Object,
	opts ...client.GetOption) error {
	c.reads.Add(1)
	return c.Reader.Get(ctx, key, obj, opts...)
}

// TestGuestbookReadsItsConfigMapOnlyWhenItsVersionChanges reconciles by hand, in a namespace no manager of the
// package watches, with the standby's and the leader's reconcilers sharing one ConfigHashes as cmd/manager
// wires them: the standby reads the ConfigMap once; the leader, at the same version, reads it no more and
// writes the same config hash; after a change of the data the next reconcile reads it again and the Deployment's
// pod template gets the new hash.
func TestGuestbookReadsItsConfigMapOnlyWhenItsVersionChanges(t *testing.T) {
	g := NewWithT(t)
	ctx := context.Background()
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: unmanagedReadsNamespace}}
	g.Expect(k8s.Create(ctx, ns)).To(Succeed())
	t.Cleanup(func() { _ = k8s.Delete(context.Background(), ns) })
	cm := createConfigMap(t, ns.Name, "cfg", map[string]string{"k": "v"})
	gb := createGuestbook(t, ns.Name, "reads", 1, "cfg")
	req := reconcile.Request{NamespacedName: client.ObjectKeyFromObject(gb)}

	hashes, reader := &ConfigHashes{}, &countingReader{Reader: k8s}
	dryRun := &Reconciler{Client: standby.NewWriteRecorder(k8s, &standby.Report{}, true), APIReader: reader,
		ConfigHashes: hashes, Scheme: env.Scheme, Recorder: &events.FakeRecorder{}, Clock: clock.RealClock{},
		Observer: standby.Discard{}}
	leader := &Reconciler{Client: k8s, APIReader: reader, ConfigHashes: hashes, Scheme: env.Scheme,
		Recorder: &events.FakeRecorder{}, Clock: clock.RealClock{}}

	_, err := dryRun.Reconcile(ctx, req)
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(reader.reads.Load()).To(BeEquivalentTo(1), "the standby read the ConfigMap")
	_, err = leader.Reconcile(ctx, req)
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(reader.reads.Load()).To(BeEquivalentTo(1), "the leader knew its version's hash")
	d := &appsv1.Deployment{}
	g.Expect(k8s.Get(ctx, req.NamespacedName, d)).To(Succeed())
	g.Expect(d.Spec.Template.Annotations).To(HaveKeyWithValue(webappv1.AnnotationConfigHash, configHash(cm)))

	cm.Data["k"] = "changed"
	g.Expect(k8s.Update(ctx, cm)).To(Succeed())
	_, err = leader.Reconcile(ctx, req)
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(reader.reads.Load()).To(BeEquivalentTo(2), "a new version is read")
	g.Expect(k8s.Get(ctx, req.NamespacedName, d)).To(Succeed())
	g.Expect(d.Spec.Template.Annotations).To(HaveKeyWithValue(webappv1.AnnotationConfigHash, configHash(cm)))
}
