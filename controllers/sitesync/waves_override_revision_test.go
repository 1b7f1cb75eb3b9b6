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

	. "github.com/onsi/gomega"

	gitopsv1alpha1 "github.com/siteops/siteops/apis/gitops/v1alpha1"
	"github.com/siteops/siteops/gitops"
)

// TestWavesFreezeOverrideAppliesToItsRevisionOnly: inside one freeze window, the override annotation given
// for the first held revision publishes it; a second push in the same window is held (Frozen at the new
// revision, no commit), and the rollout says the override names another revision.
func TestWavesFreezeOverrideAppliesToItsRevisionOnly(t *testing.T) {
	useSuite(t)
	g := NewWithT(t)
	ro := newRollout(t, gitopsv1alpha1.OnFailureHalt)
	open := suite.clock.Now().UTC().Add(-time.Hour).Truncate(time.Hour)
	patchSiteSync(t, ro.key, map[string]any{"spec": map[string]any{"freeze": []map[string]any{{
		"schedule": fmt.Sprintf("%d %d * * *", open.Minute(), open.Hour()), "duration": "6h", "timeZone": "UTC"}}}})
	first := ro.pushBaseChange(t, "hotfix")
	ro.waitRollout(t, func(g Gomega, st *gitopsv1alpha1.RolloutStatus) {
		g.Expect(st.Revision).To(Equal(first))
		g.Expect(st.Phase).To(Equal(gitopsv1alpha1.RolloutFrozen), st.Message)
	})

	const reason = "INC-4713 hotfix approved by on-call"
	patchSiteSync(t, ro.key, map[string]any{"metadata": map[string]any{"annotations": map[string]string{
		gitopsv1alpha1.OverrideFreezeAnnotation: first[:12] + " " + reason}}})
	ss := ro.waitRollout(t, func(g Gomega, st *gitopsv1alpha1.RolloutStatus) {
		g.Expect(rolloutSite(g, st, "dev").State).To(Equal(gitopsv1alpha1.SitePublished), st.Message)
	})
	published := suite.git.Log(t, ro.repo, gitops.DefaultTargetBranch)
	g.Expect(published[0].Trailer(gitops.TrailerSourceRevision)).To(Equal(first))
	g.Expect(published[0].Trailer(gitops.TrailerFreezeOverride)).To(Equal(reason))
	dev, _ := siteStatus(ss, "dev")
	setAppStatus(t, ro.ns, "dev", appStatus("Synced", dev.RenderedCommit, "Healthy", ""))

	second := ro.pushBaseChange(t, "later")
	ro.waitRollout(t, func(g Gomega, st *gitopsv1alpha1.RolloutStatus) {
		g.Expect(st.Revision).To(Equal(second))
		g.Expect(st.Phase).To(Equal(gitopsv1alpha1.RolloutFrozen), st.Message)
		g.Expect(st.Message).To(ContainSubstring(gitopsv1alpha1.OverrideFreezeAnnotation + `="` + short(second) +
			` <reason>"`))
		g.Expect(st.Message).To(ContainSubstring("is for another revision"))
		g.Expect(rolloutSite(g, st, "dev").State).To(Equal(gitopsv1alpha1.SitePending))
	})
	g.Expect(suite.git.Log(t, ro.repo, gitops.DefaultTargetBranch)).To(HaveLen(len(published)),
		"the second push is held: no commit")
	waitCondition(t, ro.key, gitopsv1alpha1.ConditionReady, "False", gitopsv1alpha1.ReasonRolloutFrozen)
}
