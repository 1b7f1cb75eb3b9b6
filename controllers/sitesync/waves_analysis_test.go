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
	"fmt"
	"testing"
	"time"

	rolloutsv1alpha1 "github.com/argoproj/argo-rollouts/pkg/apis/rollouts/v1alpha1"
	. "github.com/onsi/gomega"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	gitopsv1alpha1 "github.com/siteops/siteops/apis/gitops/v1alpha1"
	"github.com/siteops/siteops/gitops"
)

// newAnalyzedRollout is newRollout with wave one verified by the AnalysisTemplate error-rate (a web metric
// with a threshold argument), and the template in the namespace.
func newAnalyzedRollout(t *testing.T, onFailure gitopsv1alpha1.OnFailure) rollout {
	t.Helper()
	ro := newRollout(t, onFailure)
	tpl := &rolloutsv1alpha1.AnalysisTemplate{
		ObjectMeta: metav1.ObjectMeta{Namespace: ro.ns, Name: "error-rate"},
		Spec: rolloutsv1alpha1.AnalysisTemplateSpec{
			Args: []rolloutsv1alpha1.Argument{{Name: "site"}, {Name: "sites"}, {Name: "wave"}, {Name: "revision"},
				{Name: "renderedCommit"}, {Name: "threshold"}},
			Metrics: []rolloutsv1alpha1.Metric{{Name: "error-rate", SuccessCondition: "result < {{args.threshold}}",
				Provider: rolloutsv1alpha1.MetricProvider{Web: &rolloutsv1alpha1.WebMetric{
					URL: "http://127.0.0.1:9/{{args.site}}/{{args.revision}}"}}}},
		},
	}
	NewWithT(t).Expect(suite.k8s.Create(t.Context(), tpl)).To(Succeed())
	patchSiteSync(t, ro.key, map[string]any{"spec": map[string]any{"waves": []map[string]any{
		{"name": "one", "sites": []string{"dev"}, "soak": "10m", "analysis": map[string]any{
			"templates": []map[string]any{{"templateName": "error-rate"}},
			"args":      []map[string]any{{"name": "threshold", "value": "0.05"}}}},
		{"name": "two", "sites": []string{"prod"}},
	}}})
	return ro
}

// soakWaveOne reports dev Synced and Healthy at its new rendered commit and moves the clock past its soak; it
// returns dev's rendered commit.
func (ro rollout) soakWaveOne(t *testing.T, src string) string {
	t.Helper()
	ss := ro.waitRollout(t, func(g Gomega, st *gitopsv1alpha1.RolloutStatus) {
		g.Expect(st.Revision).To(Equal(src))
		g.Expect(rolloutSite(g, st, "dev").State).To(Equal(gitopsv1alpha1.SitePublished))
	})
	dev, _ := siteStatus(ss, "dev")
	setAppStatus(t, ro.ns, "dev", appStatus("Synced", dev.RenderedCommit, "Healthy", ""))
	ro.waitRollout(t, func(g Gomega, st *gitopsv1alpha1.RolloutStatus) {
		g.Expect(st.Phase).To(Equal(gitopsv1alpha1.RolloutSoaking), st.Message)
	})
	suite.clock.advance(11 * time.Minute)
	setAppStatus(t, ro.ns, "dev", appStatus("Synced", dev.RenderedCommit, "Healthy", "soaked"))
	return dev.RenderedCommit
}

// analysisRun waits for wave one's AnalysisRun of src and returns it.
func (ro rollout) analysisRun(t *testing.T, src string) *rolloutsv1alpha1.AnalysisRun {
	t.Helper()
	ar := &rolloutsv1alpha1.AnalysisRun{}
	key := client.ObjectKey{Namespace: ro.ns, Name: "sites-one-" + src[:10]}
	NewWithT(t).Eventually(func(g Gomega) {
		g.Expect(suite.k8s.Get(t.Context(), key, ar)).To(Succeed())
	}).WithTimeout(waitTimeout).Should(Succeed())
	return ar
}

// setRunPhase writes the run's phase (and metric results), as Argo Rollouts' analysis controller would.
func setRunPhase(t *testing.T, ar *rolloutsv1alpha1.AnalysisRun, phase rolloutsv1alpha1.AnalysisPhase,
	results ...rolloutsv1alpha1.MetricResult) {
	t.Helper()
	NewWithT(t).Eventually(func(g Gomega) {
		g.Expect(suite.k8s.Get(t.Context(), client.ObjectKeyFromObject(ar), ar)).To(Succeed())
		ar.Status.Phase, ar.Status.MetricResults = phase, results
		g.Expect(suite.k8s.Update(t.Context(), ar)).To(Succeed())
	}).WithTimeout(waitTimeout).Should(Succeed())
}

// argValue is the value of the run's argument name.
func argValue(ar *rolloutsv1alpha1.AnalysisRun, name string) string {
	for _, a := range ar.Spec.Args {
		if a.Name == name && a.Value != nil {
			return *a.Value
		}
	}
	return "<unset>"
}

// TestWavesAnalysisRunGatesTheNextWave: once dev (wave one) is Synced, Healthy and soaked the SiteSync creates
// one AnalysisRun for the wave from the template, owned by it, with site, sites, wave, revision,
// renderedCommit and the spec's threshold; prod (wave two) keeps its bytes while the run runs and gets the
// change once the run is Successful.
func TestWavesAnalysisRunGatesTheNextWave(t *testing.T) {
	useSuite(t)
	g := NewWithT(t)
	ro := newAnalyzedRollout(t, gitopsv1alpha1.OnFailureHalt)
	src := ro.pushBaseChange(t, "analyzed")
	commit := ro.soakWaveOne(t, src)

	ar := ro.analysisRun(t, src)
	ss := getSiteSync(t.Context(), g, ro.key)
	g.Expect(metav1.IsControlledBy(ar, ss)).To(BeTrue(), "the SiteSync owns the run")
	g.Expect(ar.Labels).To(HaveKeyWithValue(gitopsv1alpha1.LabelSiteSync, "sites"))
	g.Expect(ar.Labels).To(HaveKeyWithValue(gitopsv1alpha1.LabelWave, "one"))
	g.Expect(ar.Spec.Metrics).To(ConsistOf(HaveField("Name", "error-rate")))
	for name, want := range map[string]string{"site": "dev", "sites": "dev", "wave": "one", "revision": src,
		"renderedCommit": commit, "threshold": "0.05"} {
		g.Expect(argValue(ar, name)).To(Equal(want), "argument %s", name)
	}
	setRunPhase(t, ar, rolloutsv1alpha1.AnalysisPhaseRunning)
	ro.waitRollout(t, func(g Gomega, st *gitopsv1alpha1.RolloutStatus) {
		g.Expect(st.Phase).To(Equal(gitopsv1alpha1.RolloutAnalyzing), st.Message)
		g.Expect(st.Analysis).NotTo(BeNil())
		g.Expect(st.Analysis.Phase).To(Equal("Running"))
		g.Expect(rolloutSite(g, st, "prod").State).To(Equal(gitopsv1alpha1.SitePending))
	})
	prod, _ := renderedFile(t, ro.repo, "prod")
	g.Expect(prod).To(Equal(ro.before["prod"]), "prod keeps its bytes while wave one's analysis runs")

	setRunPhase(t, ar, rolloutsv1alpha1.AnalysisPhaseSuccessful)
	ro.waitRollout(t, func(g Gomega, st *gitopsv1alpha1.RolloutStatus) {
		g.Expect(rolloutSite(g, st, "prod").State).To(Equal(gitopsv1alpha1.SitePublished), st.Message)
	})
	prod, _ = renderedFile(t, ro.repo, "prod")
	g.Expect(prod).To(ContainSubstring("change: analyzed"))
	g.Eventually(func(g Gomega) {
		g.Expect(eventNotes(g, t, ro.ns, gitopsv1alpha1.EventAnalysisStarted)).To(ConsistOf(
			fmt.Sprintf("wave one: analysis run %s of %s for dev", ar.Name, src[:12])))
	}).WithTimeout(waitTimeout).Should(Succeed())
}

// failedRun is a Failed error-rate metric with two measurements above the threshold.
func failedRun() rolloutsv1alpha1.MetricResult {
	return rolloutsv1alpha1.MetricResult{Name: "error-rate", Phase: rolloutsv1alpha1.AnalysisPhaseFailed, Failed: 2,
		Count: 2, Measurements: []rolloutsv1alpha1.Measurement{
			{Phase: rolloutsv1alpha1.AnalysisPhaseFailed, Value: "0.31"},
			{Phase: rolloutsv1alpha1.AnalysisPhaseFailed, Value: "0.42"}}}
}

// TestWavesFailedAnalysisHaltsAndReverts: a Failed run halts the rollout at wave one with the failing metric
// and its measurements in status.rollout and in the event; with onFailure Revert dev's last healthy output is
// committed back (Siteops-Revert-Of), and prod never gets the revision.
func TestWavesFailedAnalysisHaltsAndReverts(t *testing.T) {
	useSuite(t)
	g := NewWithT(t)
	ro := newAnalyzedRollout(t, gitopsv1alpha1.OnFailureRevert)
	src := ro.pushBaseChange(t, "bad-metrics")
	commit := ro.soakWaveOne(t, src)
	ar := ro.analysisRun(t, src)
	setRunPhase(t, ar, rolloutsv1alpha1.AnalysisPhaseFailed, failedRun())

	const measured = "metric error-rate Failed, measured Failed 0.31, Failed 0.42"
	ro.waitRollout(t, func(g Gomega, st *gitopsv1alpha1.RolloutStatus) {
		g.Expect(st.Phase).To(Equal(gitopsv1alpha1.RolloutHalted))
		g.Expect(st.Wave).To(Equal("one"))
		g.Expect(st.Message).To(ContainSubstring("run " + ar.Name + " Failed: " + measured))
		g.Expect(st.Analysis).NotTo(BeNil())
		g.Expect(st.Analysis.Metrics).To(ConsistOf(HaveField("Measurements", HaveLen(2))))
		g.Expect(rolloutSite(g, st, "dev").State).To(Equal(gitopsv1alpha1.SiteReverted))
	})
	log := suite.git.Log(t, ro.repo, gitops.DefaultTargetBranch)
	g.Expect(log[0].Trailer(gitops.TrailerRevertOf)).To(Equal(commit))
	dev, _ := renderedFile(t, ro.repo, "dev")
	g.Expect(dev).To(Equal(ro.before["dev"]), "dev has its last healthy bytes back")
	prod, _ := renderedFile(t, ro.repo, "prod")
	g.Expect(prod).To(Equal(ro.before["prod"]), "prod never gets the revision")
	g.Eventually(func(g Gomega) {
		g.Expect(warnings(g, t, ro.ns, gitopsv1alpha1.EventRolloutHalted)).To(ConsistOf(ContainSubstring(measured)))
	}).WithTimeout(waitTimeout).Should(Succeed())
}

// TestWavesInconclusiveAnalysisWaitsForAPerson: an Inconclusive run holds wave two (phase Inconclusive, one
// warning naming the annotations); accepting it for the revision publishes wave two.
func TestWavesInconclusiveAnalysisWaitsForAPerson(t *testing.T) {
	useSuite(t)
	g := NewWithT(t)
	ro := newAnalyzedRollout(t, gitopsv1alpha1.OnFailureHalt)
	src := ro.pushBaseChange(t, "unsure")
	ro.soakWaveOne(t, src)
	ar := ro.analysisRun(t, src)
	setRunPhase(t, ar, rolloutsv1alpha1.AnalysisPhaseInconclusive, rolloutsv1alpha1.MetricResult{Name: "error-rate",
		Phase: rolloutsv1alpha1.AnalysisPhaseInconclusive, Inconclusive: 1,
		Measurements: []rolloutsv1alpha1.Measurement{{Phase: rolloutsv1alpha1.AnalysisPhaseInconclusive, Value: "0.05"}}})
	ro.waitRollout(t, func(g Gomega, st *gitopsv1alpha1.RolloutStatus) {
		g.Expect(st.Phase).To(Equal(gitopsv1alpha1.RolloutInconclusive), st.Message)
		g.Expect(st.Message).To(ContainSubstring(gitopsv1alpha1.AcceptAnalysisAnnotationPrefix + "one=" + src))
		g.Expect(rolloutSite(g, st, "prod").State).To(Equal(gitopsv1alpha1.SitePending))
	})
	g.Eventually(func(g Gomega) {
		g.Expect(warnings(g, t, ro.ns, gitopsv1alpha1.EventAnalysisInconclusive)).To(HaveLen(1))
	}).WithTimeout(waitTimeout).Should(Succeed())

	patchSiteSync(t, ro.key, map[string]any{"metadata": map[string]any{"annotations": map[string]string{
		gitopsv1alpha1.AcceptAnalysisAnnotationPrefix + "one": src[:8]}}})
	ro.waitRollout(t, func(g Gomega, st *gitopsv1alpha1.RolloutStatus) {
		g.Expect(rolloutSite(g, st, "prod").State).To(Equal(gitopsv1alpha1.SitePublished), st.Message)
	})
	prod, _ := renderedFile(t, ro.repo, "prod")
	g.Expect(prod).To(ContainSubstring("change: unsure"))
}

// oldRun creates a run of the SiteSync for an older revision, owned by it, in phase.
func oldRun(t *testing.T, ro rollout, name string, phase rolloutsv1alpha1.AnalysisPhase) *rolloutsv1alpha1.AnalysisRun {
	t.Helper()
	ss := getSiteSync(t.Context(), NewWithT(t), ro.key)
	ar := &rolloutsv1alpha1.AnalysisRun{
		ObjectMeta: metav1.ObjectMeta{Namespace: ro.ns, Name: name, Labels: map[string]string{
			gitopsv1alpha1.LabelSiteSync: ss.Name, gitopsv1alpha1.LabelWave: "one",
			gitopsv1alpha1.LabelRevision: name + "0000000"},
			OwnerReferences: []metav1.OwnerReference{{APIVersion: gitopsv1alpha1.GroupVersion.String(), Kind: "SiteSync",
				Name: ss.Name, UID: ss.UID, Controller: ptr.To(true)}}},
		Spec: rolloutsv1alpha1.AnalysisRunSpec{Metrics: []rolloutsv1alpha1.Metric{{Name: "m",
			Provider: rolloutsv1alpha1.MetricProvider{Web: &rolloutsv1alpha1.WebMetric{URL: "http://127.0.0.1:9/"}}}}},
	}
	NewWithT(t).Expect(suite.k8s.Create(t.Context(), ar)).To(Succeed())
	setRunPhase(t, ar, phase)
	return ar
}

// TestWavesAnalysisRunsAreStoppedAndPruned: a new wave run stops the unfinished run of an older revision
// (spec.terminate) and keeps runs up to analysisRunHistoryLimit, the current one always; lowering the limit
// deletes the oldest.
func TestWavesAnalysisRunsAreStoppedAndPruned(t *testing.T) {
	useSuite(t)
	g := NewWithT(t)
	ro := newAnalyzedRollout(t, gitopsv1alpha1.OnFailureHalt)
	done := oldRun(t, ro, "old-done", rolloutsv1alpha1.AnalysisPhaseSuccessful)
	running := oldRun(t, ro, "old-running", rolloutsv1alpha1.AnalysisPhaseRunning)
	patchSiteSync(t, ro.key, map[string]any{"spec": map[string]any{"analysisRunHistoryLimit": 3}})
	src := ro.pushBaseChange(t, "pruned")
	ro.soakWaveOne(t, src)
	ar := ro.analysisRun(t, src)

	g.Eventually(func(g Gomega) {
		g.Expect(suite.k8s.Get(t.Context(), client.ObjectKeyFromObject(running), running)).To(Succeed())
		g.Expect(running.Spec.Terminate).To(BeTrue(), "the superseded run is stopped")
	}).WithTimeout(waitTimeout).Should(Succeed())
	g.Expect(suite.k8s.Get(t.Context(), client.ObjectKeyFromObject(done), done)).To(Succeed())

	patchSiteSync(t, ro.key, map[string]any{"spec": map[string]any{"analysisRunHistoryLimit": 1}})
	g.Eventually(func(g Gomega) {
		var list rolloutsv1alpha1.AnalysisRunList
		g.Expect(suite.k8s.List(t.Context(), &list, client.InNamespace(ro.ns))).To(Succeed())
		g.Expect(list.Items).To(ConsistOf(HaveField("Name", ar.Name)), "only the current run is kept")
	}).WithTimeout(waitTimeout).Should(Succeed())
}
