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
	"github.com/prometheus/client_golang/prometheus/testutil"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/events"
	"k8s.io/utils/clock"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/siteops/siteops/internal/standby"
)

// TestGuestbookStandbyWritesNothingThenLeaderDoes reconciles by hand, in a namespace no manager of the
// package watches, as cmd/manager wires the controller: first as a standby (dry-run write recorder, discarding
// observer) — every write is recorded and nothing changes, no failover is counted — then as the leader through
// the recording client, which creates everything with server-side apply, and once more, which writes nothing
// because nothing differs.
func TestGuestbookStandbyWritesNothingThenLeaderDoes(t *testing.T) {
	g := NewWithT(t)
	ctx := context.Background()
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: unmanagedNamespace}}
	g.Expect(k8s.Create(ctx, ns)).To(Succeed())
	t.Cleanup(func() { _ = k8s.Delete(context.Background(), ns) })
	createConfigMap(t, ns.Name, "cfg", map[string]string{"k": "v"})
	gb := createGuestbook(t, ns.Name, "shadowed", 2, "cfg")
	pods := createPods(t, gb, 2)
	req := reconcile.Request{NamespacedName: client.ObjectKeyFromObject(gb)}
	failovers := testutil.ToFloat64(testMetrics.failovers)

	standbyReport := &standby.Report{}
	dryRun := &Reconciler{Client: standby.NewWriteRecorder(k8s, standbyReport, true), Scheme: env.Scheme,
		Recorder: &events.FakeRecorder{}, Clock: clock.RealClock{}, Observer: standby.Discard{}}
	_, err := dryRun.Reconcile(ctx, req)
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(standbyReport.Summarize(false).ByKind).To(And(
		HaveKeyWithValue("Deployment", 1), HaveKeyWithValue("Service", 2),
		HaveKeyWithValue("Pod", 2), HaveKeyWithValue("Guestbook/status", 1)))
	key := client.ObjectKey{Namespace: ns.Name, Name: gb.Name}
	g.Expect(apierrors.IsNotFound(k8s.Get(ctx, key, &appsv1.Deployment{}))).To(BeTrue())
	g.Expect(apierrors.IsNotFound(k8s.Get(ctx, key, &corev1.Service{}))).To(BeTrue())
	g.Expect(activePodNames(g, ns.Name)).To(BeEmpty())
	g.Expect(getGuestbook(g, gb).Status.Conditions).To(BeEmpty())

	leaderReport := &standby.Report{}
	leader := &Reconciler{Client: standby.NewWriteRecorder(k8s, leaderReport, false), Scheme: env.Scheme,
		Recorder: &events.FakeRecorder{}, Clock: clock.RealClock{}, Observer: testMetrics}
	_, err = leader.Reconcile(ctx, req)
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(k8s.Get(ctx, key, &appsv1.Deployment{})).To(Succeed())
	g.Expect(selectedPods(g, ns.Name, gb.Name)).To(Equal([]string{pods[0]}))
	g.Expect(getGuestbook(g, gb).Status.Active).To(Equal(pods[0]))
	g.Expect(testutil.ToFloat64(testMetrics.failovers)).To(Equal(failovers), "a first promotion is no failover")

	written := leaderReport.Summarize(true).Writes
	_, err = leader.Reconcile(ctx, req)
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(leaderReport.Summarize(true).Writes).To(Equal(written), "a reconcile with nothing to change writes nothing")

	// A failover seen by a standby is not counted.
	setReady(t, ns.Name, pods[0], false)
	_, err = dryRun.Reconcile(ctx, req)
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(testutil.ToFloat64(testMetrics.failovers)).To(Equal(failovers))
	g.Expect(activePodNames(g, ns.Name)).To(Equal([]string{pods[0]}), "the standby changed nothing")
}
