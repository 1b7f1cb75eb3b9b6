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

// TestWavesOverrideAnnotationAloneReleasesAFrozenPush: docs/waves.md says `kubectl annotate sitesync NAME
// siteops.dev/override-freeze="<revision> <reason>"` publishes during a freeze window; the annotation alone
// (no spec change, no requestedAt) must wake the SiteSync, not the window's end hours later.
func TestWavesOverrideAnnotationAloneReleasesAFrozenPush(t *testing.T) {
	useSuite(t)
	g := NewWithT(t)
	ro := newRollout(t, gitopsv1alpha1.OnFailureHalt)
	open := suite.clock.Now().UTC().Add(-time.Hour).Truncate(time.Hour)
	patchSiteSync(t, ro.key, map[string]any{"spec": map[string]any{"freeze": []map[string]any{{
		"schedule": fmt.Sprintf("%d %d * * *", open.Minute(), open.Hour()), "duration": "6h", "timeZone": "UTC"}}}})
	src := ro.pushBaseChange(t, "held")
	ro.waitRollout(t, func(g Gomega, st *gitopsv1alpha1.RolloutStatus) {
		g.Expect(st.Revision).To(Equal(src))
		g.Expect(st.Phase).To(Equal(gitopsv1alpha1.RolloutFrozen), st.Message)
	})

	const reason = "INC-4712 annotation only"
	patchSiteSync(t, ro.key, map[string]any{"metadata": map[string]any{"annotations": map[string]string{
		gitopsv1alpha1.OverrideFreezeAnnotation: src[:12] + " " + reason}}})
	ro.waitRollout(t, func(g Gomega, st *gitopsv1alpha1.RolloutStatus) {
		g.Expect(rolloutSite(g, st, "dev").State).To(Equal(gitopsv1alpha1.SitePublished), st.Message)
	})
	g.Expect(suite.git.Log(t, ro.repo,
		gitops.DefaultTargetBranch)[0].Trailer(gitops.TrailerFreezeOverride)).To(Equal(reason))
}

// TestWavesApprovalAnnotationAloneReleasesTheWave: `kubectl annotate sitesync NAME
// siteops.dev/approve-<wave>=<revision>` alone publishes the wave that waits for it.
func TestWavesApprovalAnnotationAloneReleasesTheWave(t *testing.T) {
	useSuite(t)
	ro := newRollout(t, gitopsv1alpha1.OnFailureHalt)
	patchSiteSync(t, ro.key, map[string]any{"spec": map[string]any{"waves": []map[string]any{
		{"name": "one", "sites": []string{"dev"}, "requireApproval": true},
		{"name": "two", "sites": []string{"prod"}},
	}}})
	src := ro.pushBaseChange(t, "approve")
	ro.waitRollout(t, func(g Gomega, st *gitopsv1alpha1.RolloutStatus) {
		g.Expect(st.Revision).To(Equal(src))
		g.Expect(st.Phase).To(Equal(gitopsv1alpha1.RolloutWaitingForApproval), st.Message)
	})

	patchSiteSync(t, ro.key, map[string]any{"metadata": map[string]any{"annotations": map[string]string{
		gitopsv1alpha1.ApproveAnnotationPrefix + "one": src}}})
	ro.waitRollout(t, func(g Gomega, st *gitopsv1alpha1.RolloutStatus) {
		g.Expect(rolloutSite(g, st, "dev").State).To(Equal(gitopsv1alpha1.SitePublished), st.Message)
	})
}
