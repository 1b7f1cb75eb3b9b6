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
	"fmt"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"

	gitopsv1alpha1 "github.com/siteops/siteops/apis/gitops/v1alpha1"
)

// fleetRow is one SiteSync of the Fleet view.
type fleetRow struct {
	Namespace, Name string
	Phase           string
	Delivered       string
	Source          string
	Rendered        string
	LastSync        *time.Time
	Ready           string
	Message         string
}

// fleetRows is the Fleet view of the SiteSyncs, in namespace and name order as the cache lists them.
func fleetRows(items []gitopsv1alpha1.SiteSync) []fleetRow {
	rows := make([]fleetRow, 0, len(items))
	for i := range items {
		ss := &items[i]
		r := fleetRow{Namespace: ss.Namespace, Name: ss.Name, Delivered: delivered(ss),
			Source: short(ss.Status.SourceRevision), Rendered: short(ss.Status.RenderedRevision),
			LastSync: timeOf(ss.Status.LastSyncTime), Phase: "-", Ready: "Unknown"}
		if ro := ss.Status.Rollout; ro != nil && ro.Phase != "" {
			r.Phase = string(ro.Phase)
		}
		if c := meta.FindStatusCondition(ss.Status.Conditions, gitopsv1alpha1.ConditionReady); c != nil {
			r.Ready, r.Message = string(c.Status), c.Message
		}
		rows = append(rows, r)
	}
	return rows
}

// delivered is status.delivered ("2/3"), or 0/N when delivery is not observed yet.
func delivered(ss *gitopsv1alpha1.SiteSync) string {
	if ss.Status.Delivered != "" {
		return ss.Status.Delivered
	}
	return fmt.Sprintf("-/%d", len(ss.Status.Sites))
}

// rolloutPage is the Rollout view of one SiteSync: the change being rolled out and the waves × sites grid.
type rolloutPage struct {
	Namespace, Name string
	Found           bool
	Phase           string
	Revision        string
	Wave            string
	Message         string
	FrozenUntil     *time.Time
	Delivered       string
	Waves           []waveRow
}

// newRolloutPage is the Rollout view of ss, or of a SiteSync not (or no longer) there when ss is nil.
func newRolloutPage(namespace, name string, ss *gitopsv1alpha1.SiteSync) rolloutPage {
	p := rolloutPage{Namespace: namespace, Name: name}
	if ss == nil {
		return p
	}
	p.Found, p.Delivered, p.Waves = true, delivered(ss), grid(ss)
	for i := range p.Waves {
		for j := range p.Waves[i].Cells {
			p.Waves[i].Cells[j].Href = "/sitesyncs/" + namespace + "/" + name + "/sites/" + p.Waves[i].Cells[j].Site
		}
	}
	p.Revision = short(ss.Status.SourceRevision)
	if ro := ss.Status.Rollout; ro != nil {
		p.Phase, p.Revision, p.Wave, p.Message = string(ro.Phase), short(ro.Revision), ro.Wave, ro.Message
		p.FrozenUntil = timeOf(ro.FrozenUntil)
	}
	return p
}

// sitePage is the Site view: what the SiteSync's status holds of one site.
type sitePage struct {
	Namespace, Name, Site string
	Found                 bool
	Status                gitopsv1alpha1.SiteStatus
	Since                 *time.Time
	Rollout               *gitopsv1alpha1.RolloutSite
	PublishedAt           *time.Time
	SoakUntil             *time.Time
	Cell                  cell
	// History is the site's rendered commits, newest first; HistoryError says why they could not be read.
	History      *siteHistory
	HistoryError string
}

// newSitePage is the Site view of site in ss (nil when the SiteSync is not there).
func newSitePage(namespace, name, site string, ss *gitopsv1alpha1.SiteSync) sitePage {
	p := sitePage{Namespace: namespace, Name: name, Site: site}
	if ss == nil {
		return p
	}
	for i := range ss.Status.Sites {
		if s := &ss.Status.Sites[i]; s.Name == site {
			p.Found, p.Status, p.Since = true, *s, timeOf(s.Since)
			p.Cell = deliveryCell(s)
		}
	}
	if ro := ss.Status.Rollout; ro != nil {
		for i := range ro.Sites {
			if rs := &ro.Sites[i]; rs.Name == site {
				p.Rollout, p.PublishedAt, p.SoakUntil = rs, timeOf(rs.PublishedAt), timeOf(rs.SoakUntil)
				if p.Found {
					p.Cell = rolloutCell(rs, &p.Status)
				}
			}
		}
	}
	return p
}

// withHistory adds the site's rendered history h to the page, each commit with what the status of ss knows of
// its delivery; h is the memo's and stays as it is.
func (p *sitePage) withHistory(ss *gitopsv1alpha1.SiteSync, h siteHistory) {
	commits := make([]historyCommit, len(h.Commits))
	for i, c := range h.Commits {
		c.Delivery = deliveryMarks(ss, &p.Status, p.Rollout, p.Site, c)
		commits[i] = c
	}
	h.Commits = commits
	p.History = &h
}

// short is a commit SHA's first 12 characters, or "-".
func short(sha string) string {
	if sha == "" {
		return "-"
	}
	return sha[:min(12, len(sha))]
}
