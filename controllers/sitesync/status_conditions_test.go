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
	"errors"
	"fmt"
	"testing"
	"time"

	. "github.com/onsi/gomega"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	clocktesting "k8s.io/utils/clock/testing"

	gitopsv1alpha1 "github.com/siteops/siteops/apis/gitops/v1alpha1"
	"github.com/siteops/siteops/gitops"
	"github.com/siteops/siteops/gitops/source"
	"github.com/siteops/siteops/internal/kit"
)

var epoch = time.Date(2026, 11, 30, 5, 0, 0, 0, time.UTC)

func newRun(sites ...gitopsv1alpha1.SiteStatus) *scope {
	obj := &gitopsv1alpha1.SiteSync{ObjectMeta: metav1.ObjectMeta{Name: "s", Namespace: "n", Generation: 3}}
	obj.Status.Sites = sites
	return &scope{obj: obj, before: *obj.Status.DeepCopy(), started: epoch}
}

func TestSummarizeSetsConditions(t *testing.T) {
	type want struct {
		ready, reconciling, stalled metav1.ConditionStatus
		reason                      string
		msg                         string
	}
	cases := []struct {
		name string
		res  *gitops.SyncResult
		err  error
		want want
	}{
		{"all sites ready", &gitops.SyncResult{SourceRevision: shaA, RenderedRevision: shaB, Sites: []gitops.SiteState{
			{Name: "dev", Ready: true}, {Name: "prod", Ready: true}}}, nil,
			want{metav1.ConditionTrue, metav1.ConditionFalse, metav1.ConditionFalse, gitopsv1alpha1.ReasonSucceeded,
				"2 sites rendered"}},
		{"one site failed", &gitops.SyncResult{SourceRevision: shaA, Sites: []gitops.SiteState{
			{Name: "dev", Ready: true}, {Name: "prod", Message: "boom"}}}, nil,
			want{metav1.ConditionFalse, metav1.ConditionFalse, metav1.ConditionFalse, gitopsv1alpha1.ReasonSitesFailed,
				"1 of 2 sites failed: prod"}},
		{"no sites", &gitops.SyncResult{SourceRevision: shaA}, nil,
			want{metav1.ConditionFalse, metav1.ConditionFalse, metav1.ConditionFalse, gitopsv1alpha1.ReasonNoSites, "no site"}},
		{"missing secret key stalls", nil, kit.Stall(gitopsv1alpha1.ReasonSecretInvalid,
			errors.New(`secret "git": missing key "password"`)),
			want{metav1.ConditionFalse, metav1.ConditionFalse, metav1.ConditionTrue, gitopsv1alpha1.ReasonSecretInvalid,
				`missing key "password"`}},
		{"transient error retries", nil, fmt.Errorf("syncing: %w", errors.New("connection refused")),
			want{metav1.ConditionFalse, metav1.ConditionTrue, metav1.ConditionFalse, gitopsv1alpha1.ReasonSyncFailed,
				"connection refused"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			g := NewWithT(t)
			r := &Reconciler{Clock: clocktesting.NewFakePassiveClock(epoch)}
			run := newRun()
			run.obj.Annotations = map[string]string{gitopsv1alpha1.RequestedAtAnnotation: "t1"}
			if tc.res != nil {
				run.result = *tc.res
				g.Expect(r.recordResult(t.Context(), run)).To(Succeed())
			}
			r.summarize(run, tc.err)
			st := run.obj.Status
			g.Expect(st.ObservedGeneration).To(Equal(int64(3)))
			g.Expect(st.LastSyncTime.Time).To(Equal(epoch))
			g.Expect(st.LastHandledTrigger).To(Equal("t1"))
			ready := meta.FindStatusCondition(st.Conditions, gitopsv1alpha1.ConditionReady)
			g.Expect(ready).NotTo(BeNil())
			g.Expect(ready.Status).To(Equal(tc.want.ready))
			g.Expect(ready.Reason).To(Equal(tc.want.reason))
			g.Expect(ready.Message).To(ContainSubstring(tc.want.msg))
			g.Expect(ready.ObservedGeneration).To(Equal(int64(3)))
			g.Expect(meta.FindStatusCondition(st.Conditions,
				gitopsv1alpha1.ConditionReconciling).Status).To(Equal(tc.want.reconciling))
			g.Expect(meta.FindStatusCondition(st.Conditions, gitopsv1alpha1.ConditionStalled).Status).To(Equal(tc.want.stalled))
		})
	}
}

func TestSummarizeSuspendedLeavesReadyAlone(t *testing.T) {
	g := NewWithT(t)
	r := &Reconciler{Clock: clocktesting.NewFakePassiveClock(epoch)}
	run := newRun()
	run.obj.Spec.Suspend = true
	r.conditions().Set(run.obj, gitopsv1alpha1.ConditionReady, *kit.True(gitopsv1alpha1.ReasonSucceeded, "earlier"))
	r.summarize(run, nil)
	g.Expect(meta.IsStatusConditionTrue(run.obj.Status.Conditions, gitopsv1alpha1.ConditionReady)).To(BeTrue())
	rec := meta.FindStatusCondition(run.obj.Status.Conditions, gitopsv1alpha1.ConditionReconciling)
	g.Expect(rec.Reason).To(Equal(gitopsv1alpha1.ReasonSuspended))
	g.Expect(run.obj.Status.LastSyncTime).To(BeNil(), "a suspended SiteSync does not sync")
}

func TestRecordResultMapsSitesAndScrubsMessages(t *testing.T) {
	g := NewWithT(t)
	r := &Reconciler{Clock: clocktesting.NewFakePassiveClock(epoch)}
	run := newRun()
	run.redact = source.NewRedactor(&gitops.Auth{Password: "p4ssw0rd-known"})
	run.result = gitops.SyncResult{SourceRevision: shaA, RenderedRevision: shaB, ForeignCommits: []string{shaB},
		Sites: []gitops.SiteState{
			{Name: "dev", InputDigest: "sha256:1", Ready: true, Rendered: true, LastRenderedRevision: shaA,
				Warnings: []string{"bases: is deprecated"}},
			{Name: "prod", InputDigest: "sha256:2", Message: "fetching https://u:p4ssw0rd-known@h/x failed"},
		}}
	g.Expect(r.recordResult(t.Context(), run)).To(Succeed())
	st := run.obj.Status
	g.Expect(st.SourceRevision).To(Equal(shaA))
	g.Expect(st.RenderedRevision).To(Equal(shaB))
	g.Expect(st.Sites).To(Equal([]gitopsv1alpha1.SiteStatus{
		{Name: "dev", InputDigest: "sha256:1", Ready: true, LastRenderedRevision: shaA,
			Warnings: []string{"bases: is deprecated"}},
		{Name: "prod", InputDigest: "sha256:2", Message: "fetching https://***@h/x failed"},
	}))
	foreign := meta.FindStatusCondition(st.Conditions, gitopsv1alpha1.ConditionForeignCommits)
	g.Expect(foreign.Status).To(Equal(metav1.ConditionTrue))
	g.Expect(foreign.Message).To(ContainSubstring(shaB[:12]))
}

// Commit SHAs of the package's pure tests.
const (
	shaA = "0123456789abcdef0123456789abcdef01234567"
	shaB = "89abcdef0123456789abcdef0123456789abcdef"
)
