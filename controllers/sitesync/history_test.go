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
	"strings"
	"testing"
	"time"

	. "github.com/onsi/gomega"

	gitopsv1alpha1 "github.com/siteops/siteops/apis/gitops/v1alpha1"
	"github.com/siteops/siteops/gitops"
)

// historyStatus is a status of sites a and b, each in the given delivery state since the given time.
func historyStatus(rev string, since map[string]time.Time, delivery map[string]gitopsv1alpha1.DeliveryState,
) gitopsv1alpha1.SiteSyncStatus {
	st := gitopsv1alpha1.SiteSyncStatus{SourceRevision: rev}
	for _, name := range []string{"a", "b"} {
		s := gitopsv1alpha1.SiteStatus{Name: name}
		s.Delivery, s.Since = delivery[name], stamp(since[name])
		st.Sites = append(st.Sites, s)
	}
	return st
}

func sha(c string) string { return strings.Repeat(c, 40) }

// TestHistoryRecordsPublishDeliveryHaltAndRestore walks one SiteSync's status through two revisions: the
// record gets each revision's commit and publish times, the delivery time is the latest site's (not the
// reconcile's), a halt names the failed site, and the restore waits until a site changed after the halt.
func TestHistoryRecordsPublishDeliveryHaltAndRestore(t *testing.T) {
	g := NewWithT(t)
	t0 := time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)
	at := func(n int) time.Time { return t0.Add(time.Duration(n) * time.Minute) }
	delivered := map[string]gitopsv1alpha1.DeliveryState{"a": gitopsv1alpha1.DeliveryDelivered,
		"b": gitopsv1alpha1.DeliveryDelivered}
	pending := map[string]gitopsv1alpha1.DeliveryState{"a": gitopsv1alpha1.DeliveryPending,
		"b": gitopsv1alpha1.DeliveryDelivered}

	// R1 is committed at t0 and pushed at +2m; a is still pending.
	st := historyStatus(sha("1"), map[string]time.Time{"a": at(2), "b": at(2)}, pending)
	updateHistory(&st, &gitops.SyncResult{SourceRevision: sha("1"), SourceTime: t0, Pushed: true}, at(2))
	g.Expect(st.History).To(HaveLen(1))
	g.Expect(st.History[0].CommittedAt.Time).To(Equal(t0))
	g.Expect(st.History[0].PublishedAt.Time).To(Equal(at(2)))
	g.Expect(st.History[0].DeliveredAt).To(BeNil())

	// a became Delivered at +5m, b at +4m; the reconcile that sees it runs at +9m.
	st = withHistory(historyStatus(sha("1"), map[string]time.Time{"a": at(5), "b": at(4)}, delivered), st)
	updateHistory(&st, nil, at(9))
	g.Expect(st.History[0].DeliveredAt.Time).To(Equal(at(5)), "the latest site's time, not the reconcile's")

	// R2, committed at +10m, is pushed to a wave at +11m and halts on a at +20m.
	st = withHistory(historyStatus(sha("2"), map[string]time.Time{"a": at(12), "b": at(4)}, pending), st)
	st.Rollout = &gitopsv1alpha1.RolloutStatus{Revision: sha("2"), Phase: gitopsv1alpha1.RolloutProgressing}
	updateHistory(&st, &gitops.SyncResult{SourceRevision: sha("2"), SourceTime: at(10), Pushed: true}, at(11))
	g.Expect(st.History).To(HaveLen(2))
	g.Expect(st.History[0].Revision).To(Equal(sha("2")))
	st.Rollout = &gitopsv1alpha1.RolloutStatus{Revision: sha("2"), Phase: gitopsv1alpha1.RolloutHalted,
		Sites: []gitopsv1alpha1.RolloutSite{{Name: "a", State: gitopsv1alpha1.SiteHalted},
			{Name: "b", State: gitopsv1alpha1.SitePending}}}
	updateHistory(&st, nil, at(20))
	g.Expect(st.History[0].HaltedAt.Time).To(Equal(at(20)))
	g.Expect(st.History[0].FailedSites).To(Equal([]string{"a"}))
	g.Expect(st.History[0].DeliveredAt).To(BeNil())

	// A halt on analysis with every site Delivered since before the halt is not a restore.
	st2 := withHistory(historyStatus(sha("2"), map[string]time.Time{"a": at(15), "b": at(4)}, delivered), st)
	st2.Rollout = st.Rollout
	updateHistory(&st2, nil, at(21))
	g.Expect(st2.History[0].RestoredAt).To(BeNil())

	// The revert reaches a, Delivered again at +31m: restored, but R2 itself was never delivered.
	st = withHistory(historyStatus(sha("2"), map[string]time.Time{"a": at(31), "b": at(4)}, delivered), st)
	st.Rollout = &gitopsv1alpha1.RolloutStatus{Revision: sha("2"), Phase: gitopsv1alpha1.RolloutHalted,
		Sites: []gitopsv1alpha1.RolloutSite{{Name: "a", State: gitopsv1alpha1.SiteReverted}}}
	updateHistory(&st, nil, at(40))
	g.Expect(st.History[0].RestoredAt.Time).To(Equal(at(31)))
	g.Expect(st.History[0].DeliveredAt).To(BeNil())
	g.Expect(st.History[1].DeliveredAt.Time).To(Equal(at(5)), "R1's delivery stays as recorded")
}

// TestHistoryDeliversTheSupersededRevisionsWithTheNewest: a revision superseded before it reached every site
// is delivered with the newest one, whose output holds its change; with waves, only once the rollout is
// Complete.
func TestHistoryDeliversTheSupersededRevisionsWithTheNewest(t *testing.T) {
	g := NewWithT(t)
	t0 := time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)
	delivered := map[string]gitopsv1alpha1.DeliveryState{"a": gitopsv1alpha1.DeliveryDelivered,
		"b": gitopsv1alpha1.DeliveryDelivered}
	st := historyStatus(sha("2"), map[string]time.Time{"a": t0.Add(time.Hour), "b": t0.Add(time.Hour)}, delivered)
	st.History = []gitopsv1alpha1.RevisionRecord{{Revision: sha("2"), PublishedAt: stamp(t0.Add(time.Minute))},
		{Revision: sha("1"), PublishedAt: stamp(t0)}}
	st.Rollout = &gitopsv1alpha1.RolloutStatus{Revision: sha("2"), Phase: gitopsv1alpha1.RolloutSoaking}
	updateHistory(&st, nil, t0.Add(2*time.Hour))
	g.Expect(st.History[0].DeliveredAt).To(BeNil(), "the rollout is not complete")

	st.Rollout.Phase = gitopsv1alpha1.RolloutComplete
	updateHistory(&st, nil, t0.Add(2*time.Hour))
	for _, rec := range st.History {
		g.Expect(rec.DeliveredAt).To(Equal(stamp(t0.Add(time.Hour))), rec.Revision)
	}
}

// TestHistoryKeepsTheNewestRevisions: status.history holds at most HistoryLimit revisions, newest first.
func TestHistoryKeepsTheNewestRevisions(t *testing.T) {
	g := NewWithT(t)
	var st gitopsv1alpha1.SiteSyncStatus
	t0 := time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)
	for i := range gitopsv1alpha1.HistoryLimit + 5 {
		rev := strings.Repeat("0", 38) + string(rune('a'+i/16)) + string(rune('a'+i%16))
		updateHistory(&st, &gitops.SyncResult{SourceRevision: rev, Pushed: true}, t0.Add(time.Duration(i)*time.Minute))
	}
	g.Expect(st.History).To(HaveLen(gitopsv1alpha1.HistoryLimit))
	g.Expect(st.History[0].PublishedAt).To(Equal(stamp(t0.Add(time.Duration(gitopsv1alpha1.HistoryLimit+4) *
		time.Minute))))
	g.Expect(st.History[0].CommittedAt).To(BeNil(), "no source time known")
}

// withHistory is st with the history of prev.
func withHistory(st, prev gitopsv1alpha1.SiteSyncStatus) gitopsv1alpha1.SiteSyncStatus {
	st.History = prev.History
	st.Rollout = prev.Rollout
	return st
}
