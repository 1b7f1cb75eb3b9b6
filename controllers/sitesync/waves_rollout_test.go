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
	"fmt"
	"strings"
	"testing"
	"time"

	. "github.com/onsi/gomega"
	"sigs.k8s.io/controller-runtime/pkg/client"

	gitopsv1alpha1 "github.com/siteops/siteops/apis/gitops/v1alpha1"
	"github.com/siteops/siteops/gitops"
)

// rollout is a SiteSync over dev and prod, both delivered (Synced and Healthy in Argo CD), with wave one
// (dev, soak 10m) and wave two (prod).
type rollout struct {
	ns, repo string
	key      client.ObjectKey
	// before is each site's manifest before the base change.
	before map[string]string
}

// newRollout renders dev and prod, reports both Healthy at their rendered commits, then turns on the waves
// and waits until the rollout knows each site's last healthy output.
func newRollout(t *testing.T, onFailure gitopsv1alpha1.OnFailure) rollout {
	t.Helper()
	ns := newNamespace(t)
	newApp(t, ns, "dev")
	newApp(t, ns, "prod")
	key, repo, ss := renderedSiteSync(t, ns, "dev", "prod")
	ro := rollout{ns: ns, repo: repo, key: key, before: map[string]string{}}
	for _, site := range []string{"dev", "prod"} {
		s, _ := siteStatus(ss, site)
		setAppStatus(t, ns, site, appStatus("Synced", s.RenderedCommit, "Healthy", ""))
		ro.before[site], _ = renderedFile(t, repo, site)
	}
	NewWithT(t).Eventually(func(g Gomega) {
		g.Expect(getSiteSync(t.Context(), g, key).Status.Delivered).To(Equal("2/2"))
	}).WithTimeout(waitTimeout).Should(Succeed())

	spec := map[string]any{"spec": map[string]any{"onFailure": onFailure, "waves": []map[string]any{
		{"name": "one", "sites": []string{"dev"}, "soak": "10m"},
		{"name": "two", "sites": []string{"prod"}},
	}}}
	patchSiteSync(t, key, spec)
	ro.waitRollout(t, func(g Gomega, st *gitopsv1alpha1.RolloutStatus) {
		g.Expect(st.Phase).To(Equal(gitopsv1alpha1.RolloutComplete))
		g.Expect(rolloutSite(g, st, "dev").LastHealthyCommit).NotTo(BeEmpty())
	})
	return ro
}

// patchSiteSync merge-patches the SiteSync with v.
func patchSiteSync(t *testing.T, key client.ObjectKey, v any) {
	t.Helper()
	ss := &gitopsv1alpha1.SiteSync{}
	ss.Namespace, ss.Name = key.Namespace, key.Name
	data, err := json.Marshal(v)
	NewWithT(t).Expect(err).NotTo(HaveOccurred())
	NewWithT(t).Expect(suite.k8s.Patch(t.Context(), ss,
		client.RawPatch("application/merge-patch+json", data))).To(Succeed())
}

// pushBaseChange commits a base change that changes every site's output and asks for a sync; it returns
// the source commit.
func (ro rollout) pushBaseChange(t *testing.T, label string) string {
	t.Helper()
	wt := suite.git.Clone(t, ro.repo)
	base := configRepo()["base/deployment.yaml"]
	wt.Write("base/deployment.yaml", strings.Replace(base, "  name: web\n", "  name: web\n  labels: {change: "+label+
		"}\n", 1))
	sha := wt.Commit("base: " + label)
	wt.Push()
	requestSync(t, ro.key, label)
	return sha
}

// waitRollout waits until check passes on status.rollout and returns the SiteSync.
func (ro rollout) waitRollout(t *testing.T,
	check func(g Gomega, st *gitopsv1alpha1.RolloutStatus)) *gitopsv1alpha1.SiteSync {
	t.Helper()
	var ss *gitopsv1alpha1.SiteSync
	NewWithT(t).Eventually(func(g Gomega) {
		ss = getSiteSync(t.Context(), g, ro.key)
		g.Expect(ss.Status.Rollout).NotTo(BeNil())
		check(g, ss.Status.Rollout)
	}).WithTimeout(waitTimeout).Should(Succeed())
	return ss
}

// rolloutSite is the rollout's record of site.
func rolloutSite(g Gomega, st *gitopsv1alpha1.RolloutStatus, site string) gitopsv1alpha1.RolloutSite {
	for _, s := range st.Sites {
		if s.Name == site {
			return s
		}
	}
	g.Expect(st.Sites).To(ContainElement(HaveField("Name", site)))
	return gitopsv1alpha1.RolloutSite{}
}

// eventNotes lists the notes of the events with reason in ns.
func eventNotes(g Gomega, t *testing.T, ns, reason string) []string {
	var notes []string
	for _, e := range eventsOf(t.Context(), g, ns) {
		if e.Reason == reason {
			notes = append(notes, e.Message)
		}
	}
	return notes
}

// TestWavesBaseChangeReachesWaveOneThenWaveTwoAfterTheSoak: a base change is committed for dev (wave one)
// only; prod keeps its bytes while dev is not yet Healthy and while it soaks; once dev has been Synced and
// Healthy for the 10m soak (the injected clock moves, nothing sleeps) prod gets the change.
func TestWavesBaseChangeReachesWaveOneThenWaveTwoAfterTheSoak(t *testing.T) {
	useSuite(t)
	g := NewWithT(t)
	ro := newRollout(t, gitopsv1alpha1.OnFailureHalt)
	src := ro.pushBaseChange(t, "soak")

	ss := ro.waitRollout(t, func(g Gomega, st *gitopsv1alpha1.RolloutStatus) {
		g.Expect(st.Revision).To(Equal(src))
		g.Expect(st.Phase).To(Equal(gitopsv1alpha1.RolloutProgressing), st.Message)
		g.Expect(st.Wave).To(Equal("one"))
		g.Expect(rolloutSite(g, st, "dev").State).To(Equal(gitopsv1alpha1.SitePublished))
		g.Expect(rolloutSite(g, st, "prod").State).To(Equal(gitopsv1alpha1.SitePending))
		g.Expect(rolloutSite(g, st, "prod").WaitingFor).To(Equal("wave one"))
	})
	dev, _ := renderedFile(t, ro.repo, "dev")
	g.Expect(dev).To(ContainSubstring("change: soak"))
	prod, _ := renderedFile(t, ro.repo, "prod")
	g.Expect(prod).To(Equal(ro.before["prod"]), "prod keeps its bytes while wave one is on its way")
	prodStatus, _ := siteStatus(ss, "prod")
	g.Expect(prodStatus.Ready).To(BeTrue())
	g.Expect(prodStatus.LastRenderedRevision).NotTo(Equal(src))

	devStatus, _ := siteStatus(ss, "dev")
	setAppStatus(t, ro.ns, "dev", appStatus("Synced", devStatus.RenderedCommit, "Healthy", ""))
	ro.waitRollout(t, func(g Gomega, st *gitopsv1alpha1.RolloutStatus) {
		g.Expect(st.Phase).To(Equal(gitopsv1alpha1.RolloutSoaking), st.Message)
		g.Expect(rolloutSite(g, st, "dev").SoakUntil).NotTo(BeNil())
	})
	prod, _ = renderedFile(t, ro.repo, "prod")
	g.Expect(prod).To(Equal(ro.before["prod"]), "prod keeps its bytes while dev soaks")

	suite.clock.advance(11 * time.Minute)
	// Argo CD writes the Application again (as it does on every refresh): the SiteSync looks, sees the soak
	// over and publishes wave two.
	setAppStatus(t, ro.ns, "dev", appStatus("Synced", devStatus.RenderedCommit, "Healthy", "soaked"))
	ro.waitRollout(t, func(g Gomega, st *gitopsv1alpha1.RolloutStatus) {
		g.Expect(rolloutSite(g, st, "prod").State).To(Equal(gitopsv1alpha1.SitePublished), st.Message)
		g.Expect(st.Wave).To(Equal("two"))
	})
	prod, _ = renderedFile(t, ro.repo, "prod")
	g.Expect(prod).To(ContainSubstring("change: soak"))
	g.Eventually(func(g Gomega) {
		g.Expect(eventNotes(g, t, ro.ns, gitopsv1alpha1.EventWaveFinished)).To(ContainElement(HavePrefix("wave one: dev")))
		g.Expect(eventNotes(g, t, ro.ns, gitopsv1alpha1.EventWaveStarted)).To(ContainElements(
			HavePrefix("wave one: committing "+src[:12]+" for dev"), HavePrefix("wave two: committing "+src[:12]+" for prod")))
	}).WithTimeout(waitTimeout).Should(Succeed())
}

// TestWavesDegradedSiteHaltsAndIsRevertedWithTrailer: dev (wave one) turning Degraded halts the rollout
// naming dev and Argo CD's message; prod (wave two) never gets the revision; with onFailure Revert dev's last
// healthy output is committed back as a new commit with the trailer Siteops-Revert-Of naming the failed
// rendered commit, and the branch's history is kept (no force-push).
func TestWavesDegradedSiteHaltsAndIsRevertedWithTrailer(t *testing.T) {
	useSuite(t)
	g := NewWithT(t)
	ro := newRollout(t, gitopsv1alpha1.OnFailureRevert)
	src := ro.pushBaseChange(t, "broken")
	ss := ro.waitRollout(t, func(g Gomega, st *gitopsv1alpha1.RolloutStatus) {
		g.Expect(st.Revision).To(Equal(src))
		g.Expect(rolloutSite(g, st, "dev").State).To(Equal(gitopsv1alpha1.SitePublished))
	})
	bad, _ := siteStatus(ss, "dev")
	badCommit := bad.RenderedCommit
	history := suite.git.Log(t, ro.repo, gitops.DefaultTargetBranch)
	g.Eventually(func(g Gomega) {
		g.Expect(renderedEventOf(g, t, ro.ns, badCommit)).To(HaveSuffix(" for sites dev"), "wave one is dev alone")
	}).WithTimeout(waitTimeout).Should(Succeed())

	const msg = `Deployment "web" exceeded its progress deadline`
	setAppStatus(t, ro.ns, "dev", appStatus("Synced", badCommit, "Degraded", msg))
	ro.waitRollout(t, func(g Gomega, st *gitopsv1alpha1.RolloutStatus) {
		g.Expect(st.Phase).To(Equal(gitopsv1alpha1.RolloutHalted))
		g.Expect(st.Wave).To(Equal("one"))
		g.Expect(st.Message).To(ContainSubstring("dev Degraded at " + src[:12] + ": " + msg))
		g.Expect(rolloutSite(g, st, "dev").State).To(Equal(gitopsv1alpha1.SiteReverted))
		g.Expect(rolloutSite(g, st, "prod").WaitingFor).To(ContainSubstring("halted at wave one"))
	})

	log := suite.git.Log(t, ro.repo, gitops.DefaultTargetBranch)
	g.Expect(len(log)).To(Equal(len(history)+1), "one new commit, the revert")
	g.Expect(log[0].Trailer(gitops.TrailerRevertOf)).To(Equal(badCommit))
	g.Expect(log[0].Subject()).To(ContainSubstring("revert dev to the last healthy output"))
	g.Expect(log[1].SHA).To(Equal(history[0].SHA), "the failed commit stays in the history")
	dev, _ := renderedFile(t, ro.repo, "dev")
	g.Expect(dev).To(Equal(ro.before["dev"]), "dev has its last healthy bytes back")
	g.Eventually(func(g Gomega) {
		g.Expect(renderedEventOf(g, t, ro.ns, log[0].SHA)).To(HaveSuffix(" for sites dev"), "the revert names dev")
	}).WithTimeout(waitTimeout).Should(Succeed())
	for _, c := range log {
		if c.Trailer(gitops.TrailerSourceRevision) == src {
			g.Expect(c.Trailer(gitops.TrailerSites)).NotTo(ContainSubstring("prod"), "prod never gets the halted revision")
		}
	}
	prod, _ := renderedFile(t, ro.repo, "prod")
	g.Expect(prod).To(Equal(ro.before["prod"]))

	// Later syncs of the same revision keep it halted: nothing more is committed.
	requestSync(t, ro.key, "again")
	g.Eventually(func(g Gomega) {
		ss := getSiteSync(t.Context(), g, ro.key)
		g.Expect(ss.Status.LastHandledTrigger).To(Equal("again"))
		g.Expect(ss.Status.Rollout.Phase).To(Equal(gitopsv1alpha1.RolloutHalted))
	}).WithTimeout(waitTimeout).Should(Succeed())
	g.Expect(suite.git.Log(t, ro.repo, gitops.DefaultTargetBranch)).To(HaveLen(len(log)))
	g.Eventually(func(g Gomega) {
		g.Expect(warnings(g, t, ro.ns, gitopsv1alpha1.EventRolloutHalted)).To(ConsistOf(ContainSubstring(msg)))
		g.Expect(warnings(g, t, ro.ns, gitopsv1alpha1.EventSiteReverted)).To(ConsistOf(ContainSubstring("site dev")))
	}).WithTimeout(waitTimeout).Should(Succeed())
}

// TestWavesFreezeHoldsAPushUntilTheOverride: a freeze window open now holds a base change (no commit, phase
// Frozen until the window's end); the override annotation publishes it with its reason in a trailer and an
// event.
func TestWavesFreezeHoldsAPushUntilTheOverride(t *testing.T) {
	useSuite(t)
	g := NewWithT(t)
	ro := newRollout(t, gitopsv1alpha1.OnFailureHalt)
	now := suite.clock.Now().UTC()
	open := now.Add(-time.Hour).Truncate(time.Hour)
	patchSiteSync(t, ro.key, map[string]any{"spec": map[string]any{"freeze": []map[string]any{{
		"schedule": fmt.Sprintf("%d %d * * *", open.Minute(), open.Hour()), "duration": "6h", "timeZone": "UTC"}}}})
	history := suite.git.Log(t, ro.repo, gitops.DefaultTargetBranch)
	src := ro.pushBaseChange(t, "frozen")
	ro.waitRollout(t, func(g Gomega, st *gitopsv1alpha1.RolloutStatus) {
		g.Expect(st.Revision).To(Equal(src))
		g.Expect(st.Phase).To(Equal(gitopsv1alpha1.RolloutFrozen), st.Message)
		g.Expect(st.FrozenUntil).NotTo(BeNil())
		g.Expect(st.FrozenUntil.Time.Equal(open.Add(6*time.Hour))).To(BeTrue(), "frozen until %s", st.FrozenUntil)
	})
	g.Expect(suite.git.Log(t, ro.repo, gitops.DefaultTargetBranch)).To(HaveLen(len(history)), "a freeze makes no commit")

	const reason = "INC-4711 hotfix approved by on-call"
	patchSiteSync(t, ro.key, map[string]any{"metadata": map[string]any{"annotations": map[string]string{
		gitopsv1alpha1.OverrideFreezeAnnotation: src[:12] + " " + reason}}})
	requestSync(t, ro.key, "override")
	ro.waitRollout(t, func(g Gomega, st *gitopsv1alpha1.RolloutStatus) {
		g.Expect(rolloutSite(g, st, "dev").State).To(Equal(gitopsv1alpha1.SitePublished), st.Message)
	})
	log := suite.git.Log(t, ro.repo, gitops.DefaultTargetBranch)
	g.Expect(log[0].Trailer(gitops.TrailerFreezeOverride)).To(Equal(reason))
	g.Eventually(func(g Gomega) {
		g.Expect(eventNotes(g, t, ro.ns, gitopsv1alpha1.EventRolloutFrozen)).To(HaveLen(1))
		g.Expect(eventNotes(g, t, ro.ns, gitopsv1alpha1.EventFreezeOverridden)).To(ConsistOf(ContainSubstring(reason)))
	}).WithTimeout(waitTimeout).Should(Succeed())
}
