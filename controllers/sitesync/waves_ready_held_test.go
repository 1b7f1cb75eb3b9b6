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
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	gitopsv1alpha1 "github.com/siteops/siteops/apis/gitops/v1alpha1"
)

// TestWavesHaltedRolloutIsNotReady: a revision that halted the rollout is not published, even once the
// failed site runs its reverted output again and every site is Synced and Healthy: Ready is False
// (RolloutHalted) and names the held revision, and no site counts as delivered at it.
func TestWavesHaltedRolloutIsNotReady(t *testing.T) {
	useSuite(t)
	g := NewWithT(t)
	ro := newRollout(t, gitopsv1alpha1.OnFailureRevert)
	src := ro.pushBaseChange(t, "broken")
	ss := ro.waitRollout(t, func(g Gomega, st *gitopsv1alpha1.RolloutStatus) {
		g.Expect(st.Revision).To(Equal(src))
		g.Expect(rolloutSite(g, st, "dev").State).To(Equal(gitopsv1alpha1.SitePublished))
	})
	bad, _ := siteStatus(ss, "dev")
	setAppStatus(t, ro.ns, "dev", appStatus("Synced", bad.RenderedCommit, "Degraded", "crash loop"))
	ss = ro.waitRollout(t, func(g Gomega, st *gitopsv1alpha1.RolloutStatus) {
		g.Expect(st.Phase).To(Equal(gitopsv1alpha1.RolloutHalted))
		g.Expect(rolloutSite(g, st, "dev").State).To(Equal(gitopsv1alpha1.SiteReverted))
	})
	reverted, _ := siteStatus(ss, "dev")
	g.Expect(reverted.RenderedCommit).NotTo(Equal(bad.RenderedCommit))
	setAppStatus(t, ro.ns, "dev", appStatus("Synced", reverted.RenderedCommit, "Healthy", ""))
	g.Eventually(func(g Gomega) {
		dev, _ := siteStatus(getSiteSync(t.Context(), g, ro.key), "dev")
		g.Expect(dev.Delivery).To(Equal(gitopsv1alpha1.DeliveryDelivered))
	}).WithTimeout(waitTimeout).Should(Succeed())

	ss = waitCondition(t, ro.key, gitopsv1alpha1.ConditionReady, metav1.ConditionFalse,
		gitopsv1alpha1.ReasonRolloutHalted)
	// dev runs its reverted output, prod waits for a newer revision: neither is delivered at the revision.
	g.Expect(ss.Status.Delivered).To(Equal("0/2"))
	ready := meta.FindStatusCondition(ss.Status.Conditions, gitopsv1alpha1.ConditionReady)
	g.Expect(ready.Message).To(HavePrefix(short(src) + " is held (rollout Halted): halted at wave one"))
	g.Expect(ready.Message).To(ContainSubstring("dev Degraded at " + short(src) + ": crash loop"))
}

// TestWavesFrozenRolloutIsNotReady: a revision a freeze window holds is not published although every site is
// Synced and Healthy at its rendered commit: Ready is False (RolloutFrozen) and names the held revision and
// when the window closes, and no site counts as delivered at it.
func TestWavesFrozenRolloutIsNotReady(t *testing.T) {
	useSuite(t)
	g := NewWithT(t)
	ro := newRollout(t, gitopsv1alpha1.OnFailureHalt)
	open := suite.clock.Now().UTC().Add(-time.Hour).Truncate(time.Hour)
	patchSiteSync(t, ro.key, map[string]any{"spec": map[string]any{"freeze": []map[string]any{{
		"schedule": fmt.Sprintf("%d %d * * *", open.Minute(), open.Hour()), "duration": "6h", "timeZone": "UTC"}}}})
	src := ro.pushBaseChange(t, "frozen")
	ro.waitRollout(t, func(g Gomega, st *gitopsv1alpha1.RolloutStatus) {
		g.Expect(st.Revision).To(Equal(src))
		g.Expect(st.Phase).To(Equal(gitopsv1alpha1.RolloutFrozen), st.Message)
	})

	ss := waitCondition(t, ro.key, gitopsv1alpha1.ConditionReady, metav1.ConditionFalse,
		gitopsv1alpha1.ReasonRolloutFrozen)
	g.Expect(ss.Status.Delivered).To(Equal("0/2"), "every site runs its rendered commit, none the held revision")
	ready := meta.FindStatusCondition(ss.Status.Conditions, gitopsv1alpha1.ConditionReady)
	g.Expect(ready.Message).To(HavePrefix(short(src) + " is held (rollout Frozen): wave one waits for the freeze " +
		"window to close at " + open.Add(6*time.Hour).Format(time.RFC3339)))
}
