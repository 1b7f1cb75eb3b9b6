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
	"context"
	"slices"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	gitopsv1alpha1 "github.com/siteops/siteops/apis/gitops/v1alpha1"
	"github.com/siteops/siteops/gitops"
)

// maxFailedSites bounds the sites a RevisionRecord names.
const maxFailedSites = 64

// recordHistory keeps status.history, the delivery record the ledger reads its times from.
func (r *Reconciler) recordHistory(_ context.Context, run *scope) error {
	var pushed *gitops.SyncResult
	if !run.deliveryOnly && run.result.Pushed {
		pushed = &run.result
	}
	updateHistory(&run.obj.Status, pushed, r.Clock.Now())
	return nil
}

// updateHistory records in st.History what this reconcile saw: a newly published source revision (pushed,
// nil when nothing was pushed), a halt, every site Delivered at the newest revision, and every site Delivered
// again after a halt. Delivery times are the sites' own (status.sites[].since), so a late reconcile does
// not stretch them.
func updateHistory(st *gitopsv1alpha1.SiteSyncStatus, pushed *gitops.SyncResult, now time.Time) {
	if pushed != nil && pushed.SourceRevision != "" && record(st.History, pushed.SourceRevision) == nil {
		rec := gitopsv1alpha1.RevisionRecord{Revision: pushed.SourceRevision, PublishedAt: stamp(now)}
		if !pushed.SourceTime.IsZero() {
			rec.CommittedAt = stamp(pushed.SourceTime)
		}
		st.History = append([]gitopsv1alpha1.RevisionRecord{rec}, st.History...)
		if len(st.History) > gitopsv1alpha1.HistoryLimit {
			st.History = st.History[:gitopsv1alpha1.HistoryLimit]
		}
	}
	if ro := st.Rollout; ro != nil && ro.Phase == gitopsv1alpha1.RolloutHalted {
		if rec := record(st.History, ro.Revision); rec != nil && rec.HaltedAt == nil {
			rec.HaltedAt, rec.FailedSites = stamp(now), failedSites(ro)
		}
	}
	latest, all := deliveredSince(st)
	if !all {
		return
	}
	if len(st.History) > 0 && st.History[0].Revision == st.SourceRevision && rolloutDone(st) {
		// The newest revision's output runs everywhere, and with it every older change not halted.
		for i := range st.History {
			rec := &st.History[i]
			if rec.DeliveredAt == nil && rec.HaltedAt == nil {
				rec.DeliveredAt = stamp(later(latest, rec.PublishedAt))
			}
		}
	}
	for i := range st.History {
		rec := &st.History[i]
		if rec.HaltedAt != nil && rec.RestoredAt == nil && latest.After(rec.HaltedAt.Time) {
			rec.RestoredAt = stamp(latest)
		}
	}
}

// record is the entry of revision in history, or nil.
func record(history []gitopsv1alpha1.RevisionRecord, revision string) *gitopsv1alpha1.RevisionRecord {
	for i := range history {
		if history[i].Revision == revision {
			return &history[i]
		}
	}
	return nil
}

// deliveredSince reports whether every site is Delivered and, if so, the latest time one became so.
func deliveredSince(st *gitopsv1alpha1.SiteSyncStatus) (latest time.Time, all bool) {
	if len(st.Sites) == 0 {
		return time.Time{}, false
	}
	for _, s := range st.Sites {
		if s.Delivery != gitopsv1alpha1.DeliveryDelivered || s.Since == nil {
			return time.Time{}, false
		}
		if s.Since.After(latest) {
			latest = s.Since.Time
		}
	}
	return latest, true
}

// rolloutDone reports whether the newest revision is published to every site it changes: always without a
// rollout, else when the rollout of that revision is Complete.
func rolloutDone(st *gitopsv1alpha1.SiteSyncStatus) bool {
	ro := st.Rollout
	return ro == nil || (ro.Revision == st.SourceRevision && ro.Phase == gitopsv1alpha1.RolloutComplete)
}

// failedSites are the sites that halted the rollout, sorted, at most maxFailedSites.
func failedSites(ro *gitopsv1alpha1.RolloutStatus) []string {
	var out []string
	for _, s := range ro.Sites {
		if s.State == gitopsv1alpha1.SiteHalted || s.State == gitopsv1alpha1.SiteReverted {
			out = append(out, s.Name)
		}
	}
	slices.Sort(out)
	if len(out) > maxFailedSites {
		out = out[:maxFailedSites]
	}
	return out
}

// later is the later of t and u (nil: t).
func later(t time.Time, u *metav1.Time) time.Time {
	if u != nil && u.After(t) {
		return u.Time
	}
	return t
}

func stamp(t time.Time) *metav1.Time {
	m := metav1.NewTime(t)
	return &m
}
