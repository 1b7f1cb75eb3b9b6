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
	"time"

	. "github.com/onsi/gomega"

	gitopsv1alpha1 "github.com/siteops/siteops/apis/gitops/v1alpha1"
)

// TestWavesPauseHoldsWaveTwoUntilResume: with the rollout paused after wave one was published, dev goes on
// to Healthy and soaked, but prod (wave two) keeps its bytes and the phase is Paused; removing the annotation
// publishes prod. One RolloutPaused event carries the reason, one RolloutResumed follows.
func TestWavesPauseHoldsWaveTwoUntilResume(t *testing.T) {
	useSuite(t)
	g := NewWithT(t)
	ro := newRollout(t, gitopsv1alpha1.OnFailureHalt)
	src := ro.pushBaseChange(t, "paused")
	ss := ro.waitRollout(t, func(g Gomega, st *gitopsv1alpha1.RolloutStatus) {
		g.Expect(st.Revision).To(Equal(src))
		g.Expect(rolloutSite(g, st, "dev").State).To(Equal(gitopsv1alpha1.SitePublished))
	})
	const reason = "INC-9 checking the canary by hand"
	patchSiteSync(t, ro.key, map[string]any{"metadata": map[string]any{"annotations": map[string]string{
		gitopsv1alpha1.PauseRolloutAnnotation: reason}}})
	ro.waitRollout(t, func(g Gomega, st *gitopsv1alpha1.RolloutStatus) {
		g.Expect(st.Paused).To(BeTrue())
	})

	dev, _ := siteStatus(ss, "dev")
	setAppStatus(t, ro.ns, "dev", appStatus("Synced", dev.RenderedCommit, "Healthy", ""))
	ro.waitRollout(t, func(g Gomega, st *gitopsv1alpha1.RolloutStatus) {
		g.Expect(st.Phase).To(Equal(gitopsv1alpha1.RolloutSoaking), "a paused rollout goes on soaking: %s", st.Message)
	})
	suite.clock.advance(11 * time.Minute)
	setAppStatus(t, ro.ns, "dev", appStatus("Synced", dev.RenderedCommit, "Healthy", "soaked"))
	ro.waitRollout(t, func(g Gomega, st *gitopsv1alpha1.RolloutStatus) {
		g.Expect(st.Phase).To(Equal(gitopsv1alpha1.RolloutPaused), st.Message)
		g.Expect(st.Wave).To(Equal("two"))
		g.Expect(rolloutSite(g, st, "prod").WaitingFor).To(Equal("the rollout to resume"))
	})
	requestSync(t, ro.key, "while-paused")
	g.Eventually(func(g Gomega) {
		g.Expect(getSiteSync(t.Context(), g, ro.key).Status.LastHandledTrigger).To(Equal("while-paused"))
	}).WithTimeout(waitTimeout).Should(Succeed())
	prod, _ := renderedFile(t, ro.repo, "prod")
	g.Expect(prod).To(Equal(ro.before["prod"]), "prod keeps its bytes while the rollout is paused")

	patchSiteSync(t, ro.key, map[string]any{"metadata": map[string]any{"annotations": map[string]any{
		gitopsv1alpha1.PauseRolloutAnnotation: nil}}})
	ro.waitRollout(t, func(g Gomega, st *gitopsv1alpha1.RolloutStatus) {
		g.Expect(rolloutSite(g, st, "prod").State).To(Equal(gitopsv1alpha1.SitePublished), st.Message)
		g.Expect(st.Paused).To(BeFalse())
	})
	prod, _ = renderedFile(t, ro.repo, "prod")
	g.Expect(prod).To(ContainSubstring("change: paused"))
	g.Eventually(func(g Gomega) {
		g.Expect(eventNotes(g, t, ro.ns, gitopsv1alpha1.EventRolloutPaused)).To(ConsistOf(ContainSubstring(reason)))
		g.Expect(eventNotes(g, t, ro.ns, gitopsv1alpha1.EventRolloutResumed)).To(HaveLen(1))
	}).WithTimeout(waitTimeout).Should(Succeed())
}
