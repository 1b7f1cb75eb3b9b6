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
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	gitopsv1alpha1 "github.com/siteops/siteops/apis/gitops/v1alpha1"
	"github.com/siteops/siteops/gitops"
)

// TestWavesRingsToleratedFailureIsRevertedAloneAndTheRolloutGoesOn: over dev, prod and staging, wave canary
// is 33% of the fleet (one site rounded up: dev, the first by name) and wave rings the rest (prod, staging)
// with maxFailures 1, maxConcurrent 1 and onFailure Revert. A base change reaches dev, then prod alone while
// staging waits for a free slot; prod turning Degraded is tolerated: it is reverted alone (a commit of its
// own with Siteops-Revert-Of), staging is published, and the rollout completes saying prod failed, with Ready
// False naming it.
func TestWavesRingsToleratedFailureIsRevertedAloneAndTheRolloutGoesOn(t *testing.T) {
	useSuite(t)
	g := NewWithT(t)
	ns := newNamespace(t)
	sites := []string{"dev", "prod", "staging"}
	for _, s := range sites {
		newApp(t, ns, s)
	}
	key, repo, _ := renderedSiteSync(t, ns, sites...)
	ro := rollout{ns: ns, repo: repo, key: key, before: map[string]string{}}
	ss := waitSite(t, key, "staging", func(g Gomega, s gitopsv1alpha1.SiteStatus) {
		g.Expect(s.RenderedCommit).NotTo(BeEmpty())
	})
	for _, site := range sites {
		s, _ := siteStatus(ss, site)
		setAppStatus(t, ns, site, appStatus("Synced", s.RenderedCommit, "Healthy", ""))
		ro.before[site], _ = renderedFile(t, repo, site)
	}
	g.Eventually(func(g Gomega) {
		g.Expect(getSiteSync(t.Context(), g, key).Status.Delivered).To(Equal("3/3"))
	}).WithTimeout(waitTimeout).Should(Succeed())
	patchSiteSync(t, key, map[string]any{"spec": map[string]any{"onFailure": "Revert", "waves": []map[string]any{
		{"name": "canary", "sites": []string{"33%"}},
		{"name": "rings", "sites": []string{"100%"}, "maxFailures": 1, "maxConcurrent": 1},
	}}})
	ro.waitRollout(t, func(g Gomega, st *gitopsv1alpha1.RolloutStatus) {
		g.Expect(st.Phase).To(Equal(gitopsv1alpha1.RolloutComplete))
		g.Expect(rolloutSite(g, st, "prod").LastHealthyCommit).NotTo(BeEmpty())
	})

	src := ro.pushBaseChange(t, "rings")
	ss = ro.waitRollout(t, func(g Gomega, st *gitopsv1alpha1.RolloutStatus) {
		g.Expect(st.Revision).To(Equal(src))
		g.Expect(rolloutSite(g, st, "dev")).To(And(HaveField("Wave", "canary"),
			HaveField("State", gitopsv1alpha1.SitePublished)))
		g.Expect(rolloutSite(g, st, "prod")).To(And(HaveField("Wave", "rings"), HaveField("WaitingFor", "wave canary")))
		g.Expect(rolloutSite(g, st, "staging")).To(HaveField("Wave", "rings"))
	})
	dev, _ := siteStatus(ss, "dev")
	setAppStatus(t, ns, "dev", appStatus("Synced", dev.RenderedCommit, "Healthy", ""))
	ss = ro.waitRollout(t, func(g Gomega, st *gitopsv1alpha1.RolloutStatus) {
		g.Expect(rolloutSite(g, st, "prod").State).To(Equal(gitopsv1alpha1.SitePublished), st.Message)
		g.Expect(rolloutSite(g, st, "staging")).To(And(HaveField("State", gitopsv1alpha1.SitePending),
			HaveField("WaitingFor", "a free slot: wave rings publishes 1 sites at a time")))
	})
	staging, _ := renderedFile(t, repo, "staging")
	g.Expect(staging).To(Equal(ro.before["staging"]), "staging waits for prod's slot")

	prod, _ := siteStatus(ss, "prod")
	history := suite.git.Log(t, repo, gitops.DefaultTargetBranch)
	setAppStatus(t, ns, "prod", appStatus("Synced", prod.RenderedCommit, "Degraded", "CrashLoopBackOff"))
	ss = ro.waitRollout(t, func(g Gomega, st *gitopsv1alpha1.RolloutStatus) {
		g.Expect(rolloutSite(g, st, "prod")).To(And(HaveField("State", gitopsv1alpha1.SiteReverted),
			HaveField("WaitingFor", ContainSubstring("failed within maxFailures (1/1 failures of wave rings)"))))
		g.Expect(rolloutSite(g, st, "staging").State).To(Equal(gitopsv1alpha1.SitePublished), st.Message)
	})
	var revertOf []string
	log := suite.git.Log(t, repo, gitops.DefaultTargetBranch)
	for _, c := range log[:len(log)-len(history)] {
		if of := c.Trailer(gitops.TrailerRevertOf); of != "" {
			revertOf = append(revertOf, of+" "+c.Trailer(gitops.TrailerSites))
		}
	}
	g.Expect(revertOf).To(ConsistOf(prod.RenderedCommit+" prod"), "prod's revert is a commit of its own")
	after, _ := renderedFile(t, repo, "prod")
	g.Expect(after).To(Equal(ro.before["prod"]), "prod has its last healthy bytes back")

	staged, _ := siteStatus(ss, "staging")
	setAppStatus(t, ns, "staging", appStatus("Synced", staged.RenderedCommit, "Healthy", ""))
	reverted, _ := siteStatus(ss, "prod")
	setAppStatus(t, ns, "prod", appStatus("Synced", reverted.RenderedCommit, "Healthy", ""))
	ro.waitRollout(t, func(g Gomega, st *gitopsv1alpha1.RolloutStatus) {
		g.Expect(st.Phase).To(Equal(gitopsv1alpha1.RolloutComplete))
		g.Expect(st.Message).To(ContainSubstring("but 1 that failed within their wave's maxFailures: prod"))
	})
	waitCondition(t, key, gitopsv1alpha1.ConditionReady, metav1.ConditionFalse, gitopsv1alpha1.ReasonRolloutSitesFailed)
	g.Eventually(func(g Gomega) {
		g.Expect(warnings(g, t, ns, gitopsv1alpha1.EventFailureTolerated)).To(ConsistOf(
			ContainSubstring("prod Degraded at " + src[:12] + ": CrashLoopBackOff; 1/1 failures")))
		g.Expect(warnings(g, t, ns, gitopsv1alpha1.EventRolloutHalted)).To(BeEmpty())
	}).WithTimeout(waitTimeout).Should(Succeed())
}
