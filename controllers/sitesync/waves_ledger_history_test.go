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
	"slices"
	"testing"
	"time"

	. "github.com/onsi/gomega"

	gitopsv1alpha1 "github.com/siteops/siteops/apis/gitops/v1alpha1"
	"github.com/siteops/siteops/gitops"
	"github.com/siteops/siteops/gitops/ledger"
	"github.com/siteops/siteops/internal/sitesyncledger"
)

// TestWavesHistoryRecordsTheHaltAndTheRestoreAfterTheRevert: the first revision is recorded delivered once
// both sites are; a broken revision halts on dev and is reverted: status.history records the halt with dev
// as the failed site, and the restore once dev is Delivered again at the revert. The ledger computed from
// the rendered branch and that status counts two deployments, one failed, and one restore lasting from the
// halt to dev's delivery.
func TestWavesHistoryRecordsTheHaltAndTheRestoreAfterTheRevert(t *testing.T) {
	useSuite(t)
	g := NewWithT(t)
	ro := newRollout(t, gitopsv1alpha1.OnFailureRevert)
	first := getSiteSync(t.Context(), g, ro.key)
	g.Expect(first.Status.History).To(HaveLen(1))
	g.Expect(first.Status.History[0].Revision).To(Equal(first.Status.SourceRevision))
	g.Expect(first.Status.History[0].CommittedAt).NotTo(BeNil())
	g.Expect(first.Status.History[0].DeliveredAt).NotTo(BeNil())

	src := ro.pushBaseChange(t, "broken")
	ss := ro.waitRollout(t, func(g Gomega, st *gitopsv1alpha1.RolloutStatus) {
		g.Expect(st.Revision).To(Equal(src))
		g.Expect(rolloutSite(g, st, "dev").State).To(Equal(gitopsv1alpha1.SitePublished))
	})
	bad, _ := siteStatus(ss, "dev")
	setAppStatus(t, ro.ns, "dev", appStatus("Synced", bad.RenderedCommit, "Degraded", "broken"))
	ss = ro.waitRollout(t, func(g Gomega, st *gitopsv1alpha1.RolloutStatus) {
		g.Expect(rolloutSite(g, st, "dev").State).To(Equal(gitopsv1alpha1.SiteReverted))
	})
	g.Expect(ss.Status.History).To(HaveLen(2))
	rec := ss.Status.History[0]
	g.Expect(rec.Revision).To(Equal(src))
	g.Expect(rec.HaltedAt).NotTo(BeNil())
	g.Expect(rec.FailedSites).To(Equal([]string{"dev"}))
	g.Expect(rec.RestoredAt).To(BeNil(), "dev is not Delivered at the revert yet")

	reverted, _ := siteStatus(ss, "dev")
	g.Expect(reverted.RenderedCommit).NotTo(Equal(bad.RenderedCommit))
	setAppStatus(t, ro.ns, "dev", appStatus("Synced", reverted.RenderedCommit, "Healthy", ""))
	g.Eventually(func(g Gomega) {
		ss = getSiteSync(t.Context(), g, ro.key)
		g.Expect(ss.Status.History[0].RestoredAt).NotTo(BeNil())
	}).WithTimeout(waitTimeout).Should(Succeed())
	rec = ss.Status.History[0]
	dev, _ := siteStatus(ss, "dev")
	g.Expect(rec.RestoredAt.Time).To(Equal(dev.Since.Time), "restored when dev became Delivered")
	g.Expect(rec.RestoredAt.After(rec.HaltedAt.Time)).To(BeTrue())
	g.Expect(rec.DeliveredAt).To(BeNil(), "the halted revision never reached every site")

	// Rendered commits carry the wall clock's time, status the suite's clock, which earlier tests moved ahead.
	w := ledger.Window{From: time.Now().Add(-24 * time.Hour), To: suite.clock.Now().Add(time.Hour)}
	pubs, err := gitops.NewSyncer(gitops.SyncerOptions{}).ReadPublishes(t.Context(), gitops.SyncOptions{
		Source:  gitops.SourceSpec{URL: ss.Spec.Source.URL, Auth: &gitops.Auth{Username: gitUser, Password: gitPassword}},
		WorkDir: t.TempDir()}, "", w.From)
	g.Expect(err).NotTo(HaveOccurred())
	rep := sitesyncledger.Report(ss, pubs, w)
	g.Expect([]int{rep.Deployments, rep.FailedChanges, rep.TimeToRestore.Count}).To(Equal([]int{2, 1, 1}))
	g.Expect(rep.TimeToRestore.MaxSeconds).To(Equal(rec.RestoredAt.Sub(rec.HaltedAt.Time).Seconds()))
	i := slices.IndexFunc(rep.Sites, func(s ledger.SiteReport) bool { return s.Name == "dev" })
	g.Expect(i).NotTo(Equal(-1), "no report for dev: %+v", rep.Sites)
	devRep := rep.Sites[i]
	g.Expect([]any{devRep.Deployments, devRep.FailedChanges, devRep.ChangeFailureRate}).To(Equal([]any{2, 1, 0.5}))
	// The same quotient, computed in another order: equal up to the last bits of a float64.
	g.Expect(devRep.DeploymentsPerDay).To(BeNumerically("~", 2.0/rep.To.Sub(rep.From).Hours()*24, 1e-9))
}
