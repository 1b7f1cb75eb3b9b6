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
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	gitopsv1alpha1 "github.com/siteops/siteops/apis/gitops/v1alpha1"
)

// stateUnknown is a cell's state before Argo CD's delivery of the site was first observed.
const stateUnknown = "Unknown"

// cell is one site of the rollout grid: its state, since when, what it waits for (until when, for a soak)
// and why it is not healthy: Argo CD's message, or the render error.
type cell struct {
	Site    string
	Href    string
	State   string
	Since   *time.Time
	Waiting string
	Until   *time.Time
	Message string
}

// waveRow is one wave of the grid with its sites in name order.
type waveRow struct {
	Name    string
	Current bool
	Cells   []cell
}

// grid lays the SiteSync's sites out by wave: the waves of spec.waves in order, then the implicit last wave.
// Without a rollout status (no waves, no freeze windows) every site is in one row, in its delivery state.
func grid(ss *gitopsv1alpha1.SiteSync) []waveRow {
	sites := make(map[string]*gitopsv1alpha1.SiteStatus, len(ss.Status.Sites))
	for i := range ss.Status.Sites {
		sites[ss.Status.Sites[i].Name] = &ss.Status.Sites[i]
	}
	ro := ss.Status.Rollout
	if ro == nil {
		row := waveRow{Name: gitopsv1alpha1.ImplicitWave}
		for i := range ss.Status.Sites {
			row.Cells = append(row.Cells, deliveryCell(&ss.Status.Sites[i]))
		}
		return []waveRow{row}
	}
	byWave := map[string][]cell{}
	for i := range ro.Sites {
		rs := &ro.Sites[i]
		byWave[rs.Wave] = append(byWave[rs.Wave], rolloutCell(rs, sites[rs.Name]))
	}
	var rows []waveRow
	for _, name := range waveOrder(ss) {
		if cells, ok := byWave[name]; ok {
			rows = append(rows, waveRow{Name: name, Current: name == ro.Wave, Cells: cells})
			delete(byWave, name)
		}
	}
	for i := range ro.Sites { // waves the spec no longer names, in the order the status lists them
		if cells, ok := byWave[ro.Sites[i].Wave]; ok {
			rows = append(rows, waveRow{Name: ro.Sites[i].Wave, Current: ro.Sites[i].Wave == ro.Wave, Cells: cells})
			delete(byWave, ro.Sites[i].Wave)
		}
	}
	return rows
}

// waveOrder is the order the rollout walks the waves in: spec.waves, then the implicit last wave.
func waveOrder(ss *gitopsv1alpha1.SiteSync) []string {
	order := make([]string, 0, len(ss.Spec.Waves)+1)
	for _, w := range ss.Spec.Waves {
		order = append(order, w.Name)
	}
	return append(order, gitopsv1alpha1.ImplicitWave)
}

// rolloutCell is a site's cell from its place in the rollout and its status row (nil when the status has
// none yet), in the word every view shows for it (ShownSiteState): a published site that Argo CD reports
// Synced and Healthy is Delivered, as the rollout's planner counts it; a site whose overlay failed to render
// is Failed with the render's reason.
func rolloutCell(rs *gitopsv1alpha1.RolloutSite, s *gitopsv1alpha1.SiteStatus) cell {
	c := cell{Site: rs.Name, State: gitopsv1alpha1.ShownSiteState(rs, s), Waiting: rs.WaitingFor}
	if s == nil {
		return c
	}
	switch {
	case !s.Ready:
		c.Waiting, c.Message = "render failed: "+s.Reason, s.Message
		c.Since = timeOf(s.Since)
	case rs.State == gitopsv1alpha1.SitePublished && s.Delivery == gitopsv1alpha1.DeliveryDelivered:
		c.Since = timeOf(s.Since)
		if c.Since == nil {
			c.Since = timeOf(rs.PublishedAt)
		}
		if rs.SoakUntil != nil && rs.WaitingFor != "" {
			c.Waiting, c.Until = "soak", timeOf(rs.SoakUntil)
		}
	case rs.State == gitopsv1alpha1.SitePublished:
		c.Since, c.Message = timeOf(rs.PublishedAt), argoMessage(s)
	case rs.State == gitopsv1alpha1.SiteHalted || rs.State == gitopsv1alpha1.SiteReverted:
		// The rollout's planner puts why the site failed, or what the revert restored, in waitingFor.
		c.Since, c.Waiting, c.Message = timeOf(s.Since), "", argoMessage(s)
		if c.Message == "" {
			c.Message = rs.WaitingFor
		}
	}
	return c
}

// deliveryCell is a site's cell without a rollout: its delivery state as Argo CD reports it (ShownSiteState),
// Failed with the render's reason for a failed render.
func deliveryCell(s *gitopsv1alpha1.SiteStatus) cell {
	c := cell{Site: s.Name, State: gitopsv1alpha1.ShownSiteState(nil, s), Since: timeOf(s.Since),
		Message: argoMessage(s)}
	switch {
	case !s.Ready:
		c.Waiting, c.Message = "render failed: "+s.Reason, s.Message
	case c.State == "":
		c.State = stateUnknown
	}
	return c
}

// argoMessage is Argo CD's message for a site that is not delivered, marked as Argo CD's.
func argoMessage(s *gitopsv1alpha1.SiteStatus) string {
	if s.Delivery == gitopsv1alpha1.DeliveryDelivered || s.DeliveryMessage == "" {
		return ""
	}
	return "Argo CD: " + s.DeliveryMessage
}

// timeOf is t as a time.Time, or nil.
func timeOf(t *metav1.Time) *time.Time {
	if t == nil || t.IsZero() {
		return nil
	}
	v := t.Time
	return &v
}
