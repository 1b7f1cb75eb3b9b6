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
	"encoding/json"
	"testing"

	rolloutsv1alpha1 "github.com/argoproj/argo-rollouts/pkg/apis/rollouts/v1alpha1"
	. "github.com/onsi/gomega"
	"sigs.k8s.io/controller-runtime/pkg/client"

	gitopsv1alpha1 "github.com/siteops/siteops/apis/gitops/v1alpha1"
)

// TestWavesHistoryRecordsTwoRevisions: a first revision passes wave one's analysis, waits for wave two's
// approval and completes; a second fails wave one's analysis and halts. status.rollout.history then holds both,
// newest first: the halted one with its failing metric and measurement, the complete one with its waves' times,
// the run that verified wave one, the rendered commits that published it and the field manager that approved
// wave two.
func TestWavesHistoryRecordsTwoRevisions(t *testing.T) {
	useSuite(t)
	g := NewWithT(t)
	ro := newAnalyzedRollout(t, gitopsv1alpha1.OnFailureHalt)
	patchSiteSync(t, ro.key, map[string]any{"spec": map[string]any{"rolloutHistoryLimit": 5,
		"waves": []map[string]any{
			{"name": "one", "sites": []string{"dev"}, "soak": "10m", "analysis": map[string]any{
				"templates": []map[string]any{{"templateName": "error-rate"}},
				"args":      []map[string]any{{"name": "threshold", "value": "0.05"}}}},
			{"name": "two", "sites": []string{"prod"}, "requireApproval": true},
		}}})

	first := ro.pushBaseChange(t, "first")
	devCommit := ro.soakWaveOne(t, first)
	firstRun := ro.analysisRun(t, first)
	setRunPhase(t, firstRun, rolloutsv1alpha1.AnalysisPhaseSuccessful)
	ro.waitRollout(t, func(g Gomega, st *gitopsv1alpha1.RolloutStatus) {
		g.Expect(st.Phase).To(Equal(gitopsv1alpha1.RolloutWaitingForApproval), st.Message)
	})
	approve, err := json.Marshal(map[string]any{"metadata": map[string]any{"annotations": map[string]string{
		gitopsv1alpha1.ApproveAnnotationPrefix + "two": first}}})
	g.Expect(err).NotTo(HaveOccurred())
	ss := &gitopsv1alpha1.SiteSync{}
	ss.Namespace, ss.Name = ro.key.Namespace, ro.key.Name
	g.Expect(suite.k8s.Patch(t.Context(), ss, client.RawPatch("application/merge-patch+json", approve),
		client.FieldOwner("release-approvals"))).To(Succeed())
	synced := ro.waitRollout(t, func(g Gomega, st *gitopsv1alpha1.RolloutStatus) {
		g.Expect(rolloutSite(g, st, "prod").State).To(Equal(gitopsv1alpha1.SitePublished), st.Message)
	})
	prod, _ := siteStatus(synced, "prod")
	prodCommit := prod.RenderedCommit
	setAppStatus(t, ro.ns, "prod", appStatus("Synced", prodCommit, "Healthy", ""))
	ro.waitRollout(t, func(g Gomega, st *gitopsv1alpha1.RolloutStatus) {
		g.Expect(st.Phase).To(Equal(gitopsv1alpha1.RolloutComplete), st.Message)
		g.Expect(st.History).To(HaveLen(1))
		g.Expect(st.History[0].Outcome).To(Equal(gitopsv1alpha1.OutcomeComplete))
	})

	second := ro.pushBaseChange(t, "second")
	ro.soakWaveOne(t, second)
	secondRun := ro.analysisRun(t, second)
	setRunPhase(t, secondRun, rolloutsv1alpha1.AnalysisPhaseFailed, failedRun())
	st := ro.waitRollout(t, func(g Gomega, st *gitopsv1alpha1.RolloutStatus) {
		g.Expect(st.Phase).To(Equal(gitopsv1alpha1.RolloutHalted), st.Message)
		g.Expect(st.History).To(HaveLen(2))
		g.Expect(st.History[0].Outcome).To(Equal(gitopsv1alpha1.OutcomeHalted))
	}).Status.Rollout

	halted, complete := st.History[0], st.History[1]
	g.Expect(halted.Revision).To(Equal(second))
	g.Expect(halted.Message).To(ContainSubstring("metric error-rate Failed"))
	g.Expect(halted.EndedAt).NotTo(BeNil())
	g.Expect(halted.Waves).To(HaveLen(1))
	g.Expect(halted.Waves[0].FinishedAt).To(BeNil(), "wave one did not pass")
	g.Expect(halted.Waves[0].Analysis).To(Equal(&gitopsv1alpha1.AnalysisRecord{Run: secondRun.Name,
		Phase: "Failed", Metric: "error-rate", Message: "measured 0.42 (Failed)"}))

	g.Expect(complete.Revision).To(Equal(first))
	g.Expect(complete.RenderedCommits).To(Equal([]string{devCommit, prodCommit}))
	g.Expect(complete.StartedAt).NotTo(BeNil())
	g.Expect(complete.EndedAt).NotTo(BeNil())
	g.Expect(complete.EndedAt.Before(complete.StartedAt)).To(BeFalse())
	g.Expect(complete.Waves).To(HaveLen(2))
	one, two := complete.Waves[0], complete.Waves[1]
	g.Expect(one.Name).To(Equal("one"))
	g.Expect(one.Analysis).To(Equal(&gitopsv1alpha1.AnalysisRecord{Run: firstRun.Name, Phase: "Successful"}))
	g.Expect(one.FinishedAt).NotTo(BeNil())
	g.Expect(one.ApprovedBy).To(BeEmpty(), "wave one needs no approval")
	g.Expect(two.Name).To(Equal("two"))
	g.Expect(two.ApprovedBy).To(Equal("release-approvals"))
	g.Expect(two.StartedAt).NotTo(BeNil())
	g.Expect(two.StartedAt.Before(one.FinishedAt)).To(BeFalse(), "wave two starts once wave one finished")
	g.Expect(two.FinishedAt).NotTo(BeNil())
}
