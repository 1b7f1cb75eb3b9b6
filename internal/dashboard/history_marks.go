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

package dashboard

import (
	"slices"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	gitopsv1alpha1 "github.com/siteops/siteops/apis/gitops/v1alpha1"
)

// mark is one thing the SiteSync's status knows of a rendered commit's delivery, and when (nil: no time).
type mark struct {
	Text string
	At   *time.Time
}

// deliveryMarks are what the status of ss knows of the site's rendered commit c: Argo CD's sync and health
// at it, its place in the rollout, and the delivery record of its source revision (status.history).
func deliveryMarks(ss *gitopsv1alpha1.SiteSync, st *gitopsv1alpha1.SiteStatus, rs *gitopsv1alpha1.RolloutSite,
	site string, c historyCommit) []mark {
	var out []mark
	add := func(text string, at *metav1.Time) { out = append(out, mark{Text: text, At: timeOf(at)}) }
	addAt := func(text string, at *metav1.Time) { // a record's time, when it has one
		if at != nil {
			add(text, at)
		}
	}
	if st.SyncedRevision == c.Commit {
		add("Argo CD: "+orDash(st.SyncStatus)+", "+orDash(st.Health)+" at this commit, since", st.Since)
	}
	if st.RenderedCommit == c.Commit {
		add("the site's current rendered commit", nil)
	}
	if rs != nil && rs.LastHealthyCommit == c.Commit {
		add("the site's last healthy commit: a revert restores it", nil)
	}
	for _, h := range ss.Status.History {
		if h.Revision != c.Source || c.Source == "" {
			continue
		}
		addAt("source committed", h.CommittedAt)
		addAt("first published", h.PublishedAt)
		addAt("every site Delivered", h.DeliveredAt)
		if h.HaltedAt != nil {
			text := "rollout halted"
			if slices.Contains(h.FailedSites, site) {
				text += " by this site"
			}
			add(text, h.HaltedAt)
		}
		addAt("every site Delivered again", h.RestoredAt)
	}
	if ro := ss.Status.Rollout; ro != nil {
		for _, r := range ro.History {
			if slices.Contains(r.RenderedCommits, c.Commit) && r.Outcome != "" {
				addAt("rollout "+string(r.Outcome), r.EndedAt)
			}
		}
	}
	return out
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
