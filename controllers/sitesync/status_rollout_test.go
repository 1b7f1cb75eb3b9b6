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
	"testing"

	. "github.com/onsi/gomega"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	clocktesting "k8s.io/utils/clock/testing"

	gitopsv1alpha1 "github.com/siteops/siteops/apis/gitops/v1alpha1"
)

// TestSummarizeReadyFollowsTheRolloutPhase: every site rendered, yet a rollout that holds its revision
// (Halted, Frozen, WaitingForApproval, Inconclusive, Paused) makes Ready False naming the revision; a rollout
// on its way or complete leaves Ready to the render and delivery; a site that failed to render comes first.
func TestSummarizeReadyFollowsTheRolloutPhase(t *testing.T) {
	cases := []struct {
		phase      gitopsv1alpha1.RolloutPhase
		renderFail bool
		status     metav1.ConditionStatus
		reason     string
	}{
		{gitopsv1alpha1.RolloutHalted, false, metav1.ConditionFalse, gitopsv1alpha1.ReasonRolloutHalted},
		{gitopsv1alpha1.RolloutFrozen, false, metav1.ConditionFalse, gitopsv1alpha1.ReasonRolloutFrozen},
		{gitopsv1alpha1.RolloutWaitingForApproval, false, metav1.ConditionFalse, gitopsv1alpha1.ReasonWaitingForApproval},
		{gitopsv1alpha1.RolloutInconclusive, false, metav1.ConditionFalse, gitopsv1alpha1.ReasonAnalysisInconclusive},
		{gitopsv1alpha1.RolloutPaused, false, metav1.ConditionFalse, gitopsv1alpha1.ReasonRolloutPaused},
		{gitopsv1alpha1.RolloutComplete, false, metav1.ConditionTrue, gitopsv1alpha1.ReasonSucceeded},
		{gitopsv1alpha1.RolloutAnalyzing, false, metav1.ConditionTrue, gitopsv1alpha1.ReasonSucceeded},
		{gitopsv1alpha1.RolloutSoaking, false, metav1.ConditionTrue, gitopsv1alpha1.ReasonSucceeded},
		{gitopsv1alpha1.RolloutFrozen, true, metav1.ConditionFalse, gitopsv1alpha1.ReasonSitesFailed},
	}
	for _, tc := range cases {
		t.Run(string(tc.phase), func(t *testing.T) {
			g := NewWithT(t)
			r := &Reconciler{Clock: clocktesting.NewFakePassiveClock(epoch)}
			run := newRun(gitopsv1alpha1.SiteStatus{Name: "dev", Ready: true},
				gitopsv1alpha1.SiteStatus{Name: "prod", Ready: !tc.renderFail, Reason: "KustomizeError"})
			run.obj.Status.SourceRevision, run.obj.Status.RenderedRevision = shaA, shaB
			run.obj.Status.Rollout = &gitopsv1alpha1.RolloutStatus{Phase: tc.phase, Revision: shaA, Message: "what waits"}
			r.summarize(run, nil)
			ready := meta.FindStatusCondition(run.obj.Status.Conditions, gitopsv1alpha1.ConditionReady)
			g.Expect(ready.Status).To(Equal(tc.status), ready.Message)
			g.Expect(ready.Reason).To(Equal(tc.reason))
			if tc.reason != gitopsv1alpha1.ReasonSucceeded && !tc.renderFail {
				g.Expect(ready.Message).To(Equal(shaA[:12] + " is held (rollout " + string(tc.phase) + "): what waits"))
			}
		})
	}
}

// TestSummarizeReadyNamesToleratedFailures: a rollout that went on past sites failing within their wave's
// maxFailures (Failed, or Reverted) does not make Ready True, even Complete and with every site Synced and
// Healthy at what it runs; a halt still says Halted.
func TestSummarizeReadyNamesToleratedFailures(t *testing.T) {
	cases := []struct {
		phase  gitopsv1alpha1.RolloutPhase
		state  gitopsv1alpha1.SiteRolloutState
		reason string
	}{
		{gitopsv1alpha1.RolloutComplete, gitopsv1alpha1.SiteFailed, gitopsv1alpha1.ReasonRolloutSitesFailed},
		{gitopsv1alpha1.RolloutComplete, gitopsv1alpha1.SiteReverted, gitopsv1alpha1.ReasonRolloutSitesFailed},
		{gitopsv1alpha1.RolloutSoaking, gitopsv1alpha1.SiteFailed, gitopsv1alpha1.ReasonRolloutSitesFailed},
		{gitopsv1alpha1.RolloutHalted, gitopsv1alpha1.SiteFailed, gitopsv1alpha1.ReasonRolloutHalted},
		{gitopsv1alpha1.RolloutComplete, gitopsv1alpha1.SitePublished, gitopsv1alpha1.ReasonSucceeded},
	}
	for _, tc := range cases {
		t.Run(string(tc.phase)+"/"+string(tc.state), func(t *testing.T) {
			g := NewWithT(t)
			r := &Reconciler{Clock: clocktesting.NewFakePassiveClock(epoch)}
			run := newRun(gitopsv1alpha1.SiteStatus{Name: "dev", Ready: true},
				gitopsv1alpha1.SiteStatus{Name: "prod", Ready: true})
			run.obj.Status.SourceRevision, run.obj.Status.RenderedRevision = shaA, shaB
			run.obj.Status.Rollout = &gitopsv1alpha1.RolloutStatus{Phase: tc.phase, Revision: shaA, Message: "m",
				Sites: []gitopsv1alpha1.RolloutSite{{Name: "dev", State: gitopsv1alpha1.SitePublished},
					{Name: "prod", State: tc.state}}}
			r.summarize(run, nil)
			ready := meta.FindStatusCondition(run.obj.Status.Conditions, gitopsv1alpha1.ConditionReady)
			g.Expect(ready.Reason).To(Equal(tc.reason), ready.Message)
			if tc.reason == gitopsv1alpha1.ReasonRolloutSitesFailed {
				g.Expect(ready.Status).To(Equal(metav1.ConditionFalse))
				g.Expect(ready.Message).To(HavePrefix(shaA[:12] + " does not run on 1 sites that failed within " +
					"their wave's maxFailures: prod"))
			}
		})
	}
}

// TestReconcilingFollowsTheRolloutPhase: while the rollout is on its way by itself (Progressing, Soaking,
// Analyzing) Reconciling is True with RolloutProgressing, naming the revision and what it waits for; a
// rollout that is Complete, or waits for a person or a window, is not in progress. An error still wins.
func TestReconcilingFollowsTheRolloutPhase(t *testing.T) {
	cases := []struct {
		phase  gitopsv1alpha1.RolloutPhase
		status metav1.ConditionStatus
		reason string
	}{
		{gitopsv1alpha1.RolloutProgressing, metav1.ConditionTrue, gitopsv1alpha1.ReasonRolloutProgressing},
		{gitopsv1alpha1.RolloutSoaking, metav1.ConditionTrue, gitopsv1alpha1.ReasonRolloutProgressing},
		{gitopsv1alpha1.RolloutAnalyzing, metav1.ConditionTrue, gitopsv1alpha1.ReasonRolloutProgressing},
		{gitopsv1alpha1.RolloutComplete, metav1.ConditionFalse, gitopsv1alpha1.ReasonIdle},
		{gitopsv1alpha1.RolloutHalted, metav1.ConditionFalse, gitopsv1alpha1.ReasonIdle},
		{gitopsv1alpha1.RolloutWaitingForApproval, metav1.ConditionFalse, gitopsv1alpha1.ReasonIdle},
	}
	for _, tc := range cases {
		t.Run(string(tc.phase), func(t *testing.T) {
			g := NewWithT(t)
			r := &Reconciler{Clock: clocktesting.NewFakePassiveClock(epoch)}
			run := newRun(gitopsv1alpha1.SiteStatus{Name: "dev", Ready: true})
			run.obj.Status.SourceRevision, run.obj.Status.RenderedRevision = shaA, shaB
			run.obj.Status.Rollout = &gitopsv1alpha1.RolloutStatus{Phase: tc.phase, Revision: shaA,
				Message: "wave canary: soaking until 10:20"}
			r.summarize(run, nil)
			rec := meta.FindStatusCondition(run.obj.Status.Conditions, gitopsv1alpha1.ConditionReconciling)
			g.Expect(rec.Status).To(Equal(tc.status), rec.Message)
			g.Expect(rec.Reason).To(Equal(tc.reason))
			if tc.status == metav1.ConditionTrue {
				g.Expect(rec.Message).To(Equal("rollout " + string(tc.phase) + " at " + shaA[:12] +
					": wave canary: soaking until 10:20"))
			}
		})
	}
}
