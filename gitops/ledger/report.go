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

package ledger

import (
	"slices"
	"sort"
	"time"
)

// Change is what the SiteSync's status keeps of one source revision's delivery (status.history); a zero time
// is one not reached (or not known).
type Change struct {
	Revision    string
	CommittedAt time.Time // the source commit's committer time
	PublishedAt time.Time // first rendered commit
	DeliveredAt time.Time // every site Delivered at the revision's output
	HaltedAt    time.Time // the rollout halted
	RestoredAt  time.Time // every site Delivered again after the halt
	FailedSites []string  // the sites that halted the rollout
}

// Window is the period a Report covers: From inclusive, To exclusive.
type Window struct{ From, To time.Time }

// Days is the window's length in days.
func (w Window) Days() float64 { return w.To.Sub(w.From).Hours() / 24 }

func (w Window) contains(t time.Time) bool { return !t.IsZero() && !t.Before(w.From) && t.Before(w.To) }

// Report is the delivery ledger of one SiteSync over a window.
type Report struct {
	From time.Time `json:"from"`
	To   time.Time `json:"to"`
	// Deployments counts the source revisions with a rendered commit in the window; DeploymentsPerDay is
	// Deployments divided by the window's days.
	Deployments       int     `json:"deployments"`
	DeploymentsPerDay float64 `json:"deploymentsPerDay"`
	// FailedChanges counts the deployments whose rollout halted or which a revert undid; ChangeFailureRate is
	// FailedChanges ÷ Deployments (0 without deployments).
	FailedChanges     int     `json:"failedChanges"`
	ChangeFailureRate float64 `json:"changeFailureRate"`
	// LeadTime is, per revision delivered in the window, its source commit time to every site Delivered.
	LeadTime Durations `json:"leadTime"`
	// TimeToRestore is, per halt restored in the window, the halt to every site Delivered again.
	TimeToRestore Durations `json:"timeToRestore"`
	// Sites is the ledger of each site that got a deployment in the window, sorted by name.
	Sites []SiteReport `json:"sites,omitempty"`
}

// SiteReport is one site's part of a Report: the deployments that changed the site and those that failed on
// it (the site halted the rollout or was reverted).
type SiteReport struct {
	Name              string  `json:"name"`
	Deployments       int     `json:"deployments"`
	DeploymentsPerDay float64 `json:"deploymentsPerDay"`
	FailedChanges     int     `json:"failedChanges"`
	ChangeFailureRate float64 `json:"changeFailureRate"`
}

// Durations summarizes measured durations: how many, and their sum, median, mean and maximum in seconds (0
// when none).
type Durations struct {
	Count         int     `json:"count"`
	SumSeconds    float64 `json:"sumSeconds"`
	MedianSeconds float64 `json:"medianSeconds"`
	MeanSeconds   float64 `json:"meanSeconds"`
	MaxSeconds    float64 `json:"maxSeconds"`
}

// Compute builds the Report of w from the rendered branch's publishes (any order) and the status' changes.
func Compute(pubs []Publish, changes []Change, w Window) Report {
	rep := Report{From: w.From, To: w.To}
	failedOn := failures(pubs, changes)
	deployed := map[string]bool{}         // revision → deployed in the window
	siteDeployed := map[string][]string{} // site → revisions deployed to it
	for _, p := range pubs {
		if !w.contains(p.At) {
			continue
		}
		for _, s := range p.Deployed() {
			deployed[p.SourceRevision] = true
			if !slices.Contains(siteDeployed[s], p.SourceRevision) {
				siteDeployed[s] = append(siteDeployed[s], p.SourceRevision)
			}
		}
	}
	rep.Deployments = len(deployed)
	for rev := range deployed {
		if _, ok := failedOn[rev]; ok {
			rep.FailedChanges++
		}
	}
	rep.DeploymentsPerDay, rep.ChangeFailureRate = rates(rep.Deployments, rep.FailedChanges, w)
	var lead, restore []time.Duration
	for _, c := range changes {
		if w.contains(c.DeliveredAt) && !c.CommittedAt.IsZero() {
			lead = append(lead, c.DeliveredAt.Sub(c.CommittedAt))
		}
		if w.contains(c.RestoredAt) && !c.HaltedAt.IsZero() {
			restore = append(restore, c.RestoredAt.Sub(c.HaltedAt))
		}
	}
	rep.LeadTime, rep.TimeToRestore = summarize(lead), summarize(restore)
	for site, revs := range siteDeployed {
		sr := SiteReport{Name: site, Deployments: len(revs)}
		for _, rev := range revs {
			if slices.Contains(failedOn[rev], site) {
				sr.FailedChanges++
			}
		}
		sr.DeploymentsPerDay, sr.ChangeFailureRate = rates(sr.Deployments, sr.FailedChanges, w)
		rep.Sites = append(rep.Sites, sr)
	}
	sort.Slice(rep.Sites, func(i, j int) bool { return rep.Sites[i].Name < rep.Sites[j].Name })
	return rep
}

// failures maps each failed revision to the sites it failed on: those that halted its rollout (status) and
// those a revert of its output restored (Git). The revision a revert undoes is the one the commit it names
// published; failing that, the revert's own.
func failures(pubs []Publish, changes []Change) map[string][]string {
	revOf := map[string]string{} // rendered commit → source revision
	for _, p := range pubs {
		revOf[p.Commit] = p.SourceRevision
	}
	out := map[string][]string{}
	add := func(rev string, sites []string) {
		list := out[rev]
		for _, s := range sites {
			if !slices.Contains(list, s) {
				list = append(list, s)
			}
		}
		out[rev] = list
	}
	for _, c := range changes {
		if !c.HaltedAt.IsZero() {
			add(c.Revision, c.FailedSites)
		}
	}
	for _, p := range pubs {
		if p.RevertOf == "" && len(p.Restored) == 0 {
			continue
		}
		rev := p.SourceRevision
		if r, ok := revOf[p.RevertOf]; ok {
			rev = r
		}
		add(rev, p.Restored)
	}
	return out
}

// rates are deployments per day and the change failure rate.
func rates(deployments, failed int, w Window) (perDay, failureRate float64) {
	if d := w.Days(); d > 0 {
		perDay = float64(deployments) / d
	}
	if deployments > 0 {
		failureRate = float64(failed) / float64(deployments)
	}
	return perDay, failureRate
}

// summarize is the Durations of ds.
func summarize(ds []time.Duration) Durations {
	if len(ds) == 0 {
		return Durations{}
	}
	slices.Sort(ds)
	var sum time.Duration
	for _, d := range ds {
		sum += d
	}
	median := ds[len(ds)/2]
	if len(ds)%2 == 0 {
		median = (ds[len(ds)/2-1] + ds[len(ds)/2]) / 2
	}
	return Durations{Count: len(ds), SumSeconds: sum.Seconds(), MedianSeconds: median.Seconds(),
		MeanSeconds: (sum / time.Duration(len(ds))).Seconds(), MaxSeconds: ds[len(ds)-1].Seconds()}
}
