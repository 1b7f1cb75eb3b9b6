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

package waves

import (
	"maps"
	"slices"
	"time"
	"unicode/utf8"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	gitopsv1alpha1 "github.com/siteops/siteops/apis/gitops/v1alpha1"
)

// Site is what the planner knows of one site.
type Site struct {
	Name string
	// Changed is true when the newest revision's output for the site differs from its folder on the rendered
	// branch.
	Changed bool
	// RenderedCommit is the rendered commit that last changed the site's folder, and PublishedRevision the
	// source revision of that output.
	RenderedCommit, PublishedRevision string
	// Delivery is where Argo CD has the site, since Since, with Argo CD's Message.
	Delivery gitopsv1alpha1.DeliveryState
	Since    time.Time
	Message  string
	// RenderFailed is the reason the site's overlay failed to render at the newest revision (status.sites[]
	// reason), empty when it rendered: its folder keeps an older output, so the revision does not run there.
	RenderFailed string
}

// Input is everything Plan decides on.
type Input struct {
	// Revision is the newest source revision rendered.
	Revision string
	Sites    []Site
	// Previous is the rollout status as last recorded; nil before the first plan.
	Previous *gitopsv1alpha1.RolloutStatus
	// Annotations of the SiteSync: approvals and the freeze override.
	Annotations map[string]string
	Now         time.Time
	// CanPublish is true when a sync carries out the plan this round; otherwise a due publish or revert is
	// only reported (Plan.ActionDue) and the sites stay as they are.
	CanPublish bool
	// Analysis is the AnalysisRun of each wave for Revision, by wave name; a wave without one has none yet.
	Analysis map[string]*gitopsv1alpha1.WaveAnalysisStatus
	// Actor names who set an annotation (approval, freeze override, analysis decision) for the history; nil
	// records them as unknown.
	Actor func(annotation string) string
}

// Revert restores a failed site's last healthy output.
type Revert struct {
	Site string
	// Commit is the rendered commit whose folder of the site is written back; Revision its source revision.
	Commit, Revision string
	// Of is the rendered commit that failed (the site's current one).
	Of string
}

// Event is a visible action of the plan, for the SiteSync's events.
type Event struct {
	Warning         bool
	Reason, Message string
}

// Plan is what to do now.
type Plan struct {
	// Publish are the sites whose newest output is committed now; the other sites keep their folders.
	Publish []string
	Revert  []Revert
	// Override is the freeze override's reason when Publish goes out during an open freeze window.
	Override string
	// ActionDue is true when a publish or revert is due and Input.CanPublish was false.
	ActionDue bool
	Status    gitopsv1alpha1.RolloutStatus
	// WakeAfter is when to look again without any other change (soak end, freeze end, progress deadline);
	// zero when nothing is timed.
	WakeAfter time.Duration
	Events    []Event
	// Analyze asks for the AnalysisRun of a wave whose sites are Synced, Healthy and soaked; nil when none is
	// due.
	Analyze *AnalysisRequest
}

// planning is one Plan call's working state.
type planning struct {
	r     *Rollout
	in    Input
	prev  gitopsv1alpha1.RolloutStatus
	sites map[string]Site
	recs  map[string]*gitopsv1alpha1.RolloutSite
	out   Plan
	wake  time.Time
}

// Plan decides, for the newest revision, which sites to publish and revert now, and reports every site's
// place. Waves go in order; a wave's changed sites are published once every site published before them is
// Synced and Healthy and soaked, outside freeze windows (unless overridden) and after approval where asked.
// A newer revision starts a new rollout from the first wave; sites still soaking an older one keep soaking.
// A Degraded site, or one not Healthy within the progress deadline, halts the revision for good, unless its
// wave's maxFailures tolerates it: then it fails (or is reverted) alone and the rollout goes on.
func (r *Rollout) Plan(in Input) Plan {
	p := &planning{r: r, in: in, sites: map[string]Site{}, recs: map[string]*gitopsv1alpha1.RolloutSite{}}
	if in.Previous != nil {
		p.prev = *in.Previous
	}
	p.out.Status.Revision = in.Revision
	p.records()
	p.pause()
	if p.prev.Revision == in.Revision && p.prev.Phase == gitopsv1alpha1.RolloutHalted {
		p.stayHalted()
	} else {
		p.walk()
	}
	p.finish()
	p.history()
	return p.out
}

// records starts every site's record from the previous one: a site keeps Published, Failed, Halted or
// Reverted (and what a failed one waits for) within the same revision; in a new revision a site still soaking
// the old one stays Published, and any site whose output the revision changes is Pending. A site whose overlay
// failed to render is Failed (renderFailed).
func (p *planning) records() {
	prev := map[string]gitopsv1alpha1.RolloutSite{}
	for _, s := range p.prev.Sites {
		prev[s.Name] = s
	}
	same := p.prev.Revision == p.in.Revision
	fleet := make([]string, len(p.in.Sites))
	for i, s := range p.in.Sites {
		fleet[i] = s.Name
	}
	waveOf := p.r.Assign(fleet)
	for _, s := range p.in.Sites {
		p.sites[s.Name] = s
		old, had := prev[s.Name]
		rec := &gitopsv1alpha1.RolloutSite{Name: s.Name, Wave: waveOf[s.Name],
			LastHealthyCommit: old.LastHealthyCommit, LastHealthyRevision: old.LastHealthyRevision}
		switch {
		case had && same && old.State != gitopsv1alpha1.SitePending && old.State != gitopsv1alpha1.SiteUnchanged:
			rec.State, rec.PublishedAt, rec.DeliveredAt = old.State, old.PublishedAt, old.DeliveredAt
			if failedState(old.State) {
				rec.WaitingFor = old.WaitingFor
			}
		case s.Changed || (had && same && old.State == gitopsv1alpha1.SitePending):
			// A site pending at this revision stays pending until the walk publishes it, even when its folder
			// already holds the revision's output: a manager that pushed the commit died before recording it
			// (or another writer published it). The walk then records it published, with its wave's events
			// and history, and verifies it before the next wave; the publish itself commits nothing new.
			rec.State = gitopsv1alpha1.SitePending
		case had && old.State == gitopsv1alpha1.SitePublished && p.prev.Phase != gitopsv1alpha1.RolloutComplete:
			rec.State, rec.PublishedAt = gitopsv1alpha1.SitePublished, old.PublishedAt
		default:
			rec.State = gitopsv1alpha1.SiteUnchanged
		}
		if s.RenderFailed != "" && (rec.State == gitopsv1alpha1.SiteUnchanged || rec.State == gitopsv1alpha1.SitePending) {
			rec.State, rec.WaitingFor = gitopsv1alpha1.SiteFailed, renderFailedWaits(s.RenderFailed)
		}
		if rec.State == gitopsv1alpha1.SitePublished && same && rec.DeliveredAt == nil &&
			s.Delivery == gitopsv1alpha1.DeliveryDelivered {
			rec.DeliveredAt = p.now()
		}
		// The last healthy output is what ran before this rollout touched the site: what a revert restores. A
		// pending site whose folder already holds this revision's output (published, not yet recorded) has none
		// new.
		if s.Delivery == gitopsv1alpha1.DeliveryDelivered && s.RenderedCommit != "" &&
			rec.State != gitopsv1alpha1.SitePublished &&
			(rec.State != gitopsv1alpha1.SitePending || s.PublishedRevision != p.in.Revision) {
			rec.LastHealthyCommit, rec.LastHealthyRevision = s.RenderedCommit, s.PublishedRevision
		}
		p.recs[s.Name] = rec
	}
}

// members are the records of the sites of wave name in state (any state when state is empty), by name.
func (p *planning) members(name string, state gitopsv1alpha1.SiteRolloutState) []*gitopsv1alpha1.RolloutSite {
	var out []*gitopsv1alpha1.RolloutSite
	for _, n := range slices.Sorted(maps.Keys(p.recs)) {
		if rec := p.recs[n]; rec.Wave == name && (state == "" || rec.State == state) {
			out = append(out, rec)
		}
	}
	return out
}

// wakeAt asks to look again at t (the earliest of all asked wins).
func (p *planning) wakeAt(t time.Time) {
	if t.After(p.in.Now) && (p.wake.IsZero() || t.Before(p.wake)) {
		p.wake = t
	}
}

// finish sorts the records into the status, notes the failures tolerated so far, bounds the message and sets
// WakeAfter.
func (p *planning) finish() {
	for _, n := range slices.Sorted(maps.Keys(p.recs)) {
		p.out.Status.Sites = append(p.out.Status.Sites, *p.recs[n])
	}
	if ph := p.out.Status.Phase; ph != gitopsv1alpha1.RolloutHalted && ph != gitopsv1alpha1.RolloutComplete {
		p.out.Status.Message += p.toleratedNote()
	}
	p.out.Status.Message = clipMessage(p.out.Status.Message)
	p.out.Status.Analysis = p.in.Analysis[p.out.Status.Wave]
	if !p.wake.IsZero() {
		p.out.WakeAfter = p.wake.Sub(p.in.Now)
	}
}

// event records a visible action.
func (p *planning) event(warning bool, reason, msg string) {
	p.out.Events = append(p.out.Events, Event{Warning: warning, Reason: reason, Message: msg})
}

// now is the plan's time for status fields.
func (p *planning) now() *metav1.Time {
	t := metav1.NewTime(p.in.Now)
	return &t
}

// maxMessage is the length of status.rollout.message the API admits: a halt of a large wave names many sites.
const maxMessage = 2048

// clipMessage cuts msg to maxMessage bytes, at a character boundary, saying it was cut.
func clipMessage(msg string) string {
	const more = " ..."
	if len(msg) <= maxMessage {
		return msg
	}
	cut := maxMessage - len(more)
	for cut > 0 && !utf8.RuneStart(msg[cut]) {
		cut--
	}
	return msg[:cut] + more
}
