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

package sitesync

import (
	"context"
	"errors"
	"os"
	"testing"
	"time"

	. "github.com/onsi/gomega"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/tools/events"
	clocktesting "k8s.io/utils/clock/testing"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	gitopsv1alpha1 "github.com/siteops/siteops/apis/gitops/v1alpha1"
	"github.com/siteops/siteops/gitops"
)

// shellFixture runs Reconcile over a fake API with a stubbed gitops.Sync.
func shellFixture(t *testing.T, sync func(context.Context, gitops.SyncOptions) (gitops.SyncResult,
	error)) (*Reconciler, client.Client, *events.FakeRecorder) {
	t.Helper()
	g := NewWithT(t)
	scheme := runtime.NewScheme()
	g.Expect(clientgoscheme.AddToScheme(scheme)).To(Succeed())
	g.Expect(gitopsv1alpha1.AddToScheme(scheme)).To(Succeed())
	ss := &gitopsv1alpha1.SiteSync{
		ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "s", Generation: 1},
		Spec: gitopsv1alpha1.SiteSyncSpec{
			Source:   gitopsv1alpha1.GitSource{URL: "https://git.example/r.git"},
			Interval: &metav1.Duration{Duration: 100 * time.Second},
		},
	}
	c := fake.NewClientBuilder().WithScheme(scheme).WithObjects(ss).WithStatusSubresource(ss).Build()
	rec := events.NewFakeRecorder(10)
	r := &Reconciler{Client: c, APIReader: c, Scheme: scheme, Recorder: rec,
		Clock: clocktesting.NewFakePassiveClock(epoch), WorkDir: t.TempDir(),
		sync: sync, random: func() float64 { return 0 }, lag: newLagTracker(), refreshed: newRefreshTracker(),
		appSetAsks: newAppSetAskTracker()}
	return r, c, rec
}

func TestReconcileTransientErrorIsRetriedWithBackoff(t *testing.T) {
	g := NewWithT(t)
	r, c, rec := shellFixture(t, func(context.Context, gitops.SyncOptions) (gitops.SyncResult, error) {
		return gitops.SyncResult{}, errors.New("dial tcp 127.0.0.1:1: connection refused")
	})
	key := client.ObjectKey{Namespace: "ns", Name: "s"}

	res, err := r.Reconcile(t.Context(), ctrl.Request{NamespacedName: key})

	g.Expect(err).To(MatchError(ContainSubstring("connection refused")))
	g.Expect(errors.Is(err, reconcile.TerminalError(nil))).To(BeFalse(), "a transient error is retried")
	g.Expect(res.RequeueAfter).To(BeZero())
	ss := &gitopsv1alpha1.SiteSync{}
	g.Expect(c.Get(t.Context(), key, ss)).To(Succeed())
	ready := meta.FindStatusCondition(ss.Status.Conditions, gitopsv1alpha1.ConditionReady)
	g.Expect(ready.Reason).To(Equal(gitopsv1alpha1.ReasonSyncFailed))
	g.Expect(meta.IsStatusConditionTrue(ss.Status.Conditions, gitopsv1alpha1.ConditionReconciling)).To(BeTrue())
	g.Expect(meta.IsStatusConditionFalse(ss.Status.Conditions, gitopsv1alpha1.ConditionStalled)).To(BeTrue())
	g.Expect(ss.Status.ObservedGeneration).To(Equal(int64(1)))
	g.Expect(drain(rec)).To(ConsistOf(HavePrefix("Warning SyncFailed syncing: dial tcp")))
}

func TestReconcileSuccessRequeuesAfterJitteredInterval(t *testing.T) {
	g := NewWithT(t)
	var got gitops.SyncOptions
	r, c, _ := shellFixture(t, func(_ context.Context, o gitops.SyncOptions) (gitops.SyncResult, error) {
		got = o
		return gitops.SyncResult{SourceRevision: shaA, RenderedRevision: shaB, Pushed: true,
			Sites: []gitops.SiteState{{Name: "dev", Ready: true, Rendered: true, InputDigest: "d"}}}, nil
	})
	key := client.ObjectKey{Namespace: "ns", Name: "s"}

	res, err := r.Reconcile(t.Context(), ctrl.Request{NamespacedName: key})

	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(res.RequeueAfter).To(Equal(90*time.Second), "random 0 gives the low end of interval ±10%")
	g.Expect(got.Source.URL).To(Equal("https://git.example/r.git"))
	g.Expect(got.WorkDir).To(Equal(r.workDir(key)))
	g.Expect(got.Previous).To(BeNil(), "no earlier status")

	// The next sync, an interval later, hands the recorded sites back as Previous.
	r.Clock.(*clocktesting.FakePassiveClock).SetTime(epoch.Add(res.RequeueAfter))
	_, err = r.Reconcile(t.Context(), ctrl.Request{NamespacedName: key})
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(got.Previous).To(HaveKeyWithValue("dev",
		gitops.SiteState{Name: "dev", Ready: true, InputDigest: "d", LastRenderedRevision: ""}))
	ss := &gitopsv1alpha1.SiteSync{}
	g.Expect(c.Get(t.Context(), key, ss)).To(Succeed())
	g.Expect(meta.IsStatusConditionTrue(ss.Status.Conditions, gitopsv1alpha1.ConditionReady)).To(BeTrue())
}

func TestReconcileDeletedSiteSyncDropsItsCache(t *testing.T) {
	g := NewWithT(t)
	r, _, _ := shellFixture(t, nil)
	gone := client.ObjectKey{Namespace: "ns", Name: "gone"}
	g.Expect(os.MkdirAll(r.workDir(gone), 0o755)).To(Succeed())

	_, err := r.Reconcile(t.Context(), ctrl.Request{NamespacedName: gone})

	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(r.workDir(gone)).NotTo(BeADirectory())
}
