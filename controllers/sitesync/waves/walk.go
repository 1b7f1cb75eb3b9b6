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
	"fmt"
	"strings"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	gitopsv1alpha1 "github.com/siteops/siteops/apis/gitops/v1alpha1"
)

// walk goes through the waves in order and stops at the first that is not done: one that failed past its
// maxFailures, waits for a gate or a free slot, is published now, or is not yet Healthy and soaked. Sites
// that fail within the wave's maxFailures are left behind, or reverted, alone. Past the last wave the rollout
// is Complete, unless a site failed to render (renderHalt).
func (p *planning) walk() {
	for _, w := range p.r.waves {
		if failed := p.failures(w); len(failed) > 0 && !p.tolerate(w, failed) {
			p.halt(w, failed)
			return
		}
		p.revertFailed(w)
		if pending := p.members(w.name, gitopsv1alpha1.SitePending); len(pending) > 0 {
			if next := p.slots(w, pending); len(next) > 0 && p.gate(w, next) {
				p.publish(w, next)
				if waiting := len(pending) - len(next); waiting > 0 {
					p.out.Status.Message += fmt.Sprintf("; %d more wait for a free slot (maxConcurrent %d)", waiting,
						w.maxConcurrent)
				}
			}
			p.laterWavesWait(w)
			return
		}
		published := p.members(w.name, gitopsv1alpha1.SitePublished)
		if len(published) > 0 && !p.settled(w, published) {
			p.laterWavesWait(w)
			return
		}
		if len(published) > 0 && w.analysis && !p.analyzed(w, published) {
			return
		}
		if len(published) > 0 && p.prev.Revision == p.in.Revision && p.prev.Wave == w.name && p.wasVerifying() {
			p.event(false, gitopsv1alpha1.EventWaveFinished, fmt.Sprintf("wave %s: %s Synced, Healthy and soaked at %s",
				w.name, names(published), short(p.in.Revision)))
		}
	}
	if p.renderHalt() {
		return
	}
	p.out.Status.Phase = gitopsv1alpha1.RolloutComplete
	p.out.Status.Message = fmt.Sprintf("every site %s changes runs it", short(p.in.Revision))
	if failed := p.toleratedSites(); len(failed) > 0 {
		p.out.Status.Message = fmt.Sprintf("every site %s changes runs it but %d that failed within their wave's "+
			"maxFailures: %s", short(p.in.Revision), len(failed), names(failed))
	}
}

// gate reports whether the wave's pending sites may be published now: the rollout not paused, no freeze
// window open (or the override annotation set for this revision), and the wave approved for this revision
// where it asks for approval.
func (p *planning) gate(w wave, pending []*gitopsv1alpha1.RolloutSite) bool {
	st := &p.out.Status
	st.Wave = w.name
	if p.held(w, pending) {
		return false
	}
	if until := p.r.frozenUntil(p.in.Now); !until.IsZero() {
		reason, why := freezeOverride(p.in.Annotations, p.in.Revision)
		if reason == "" {
			u := metav1.NewTime(until)
			st.Phase, st.FrozenUntil = gitopsv1alpha1.RolloutFrozen, &u
			st.Message = fmt.Sprintf("wave %s waits for the freeze window to close at %s (or the annotation "+
				"%s=\"%s <reason>\")", w.name, until.UTC().Format(time.RFC3339), gitopsv1alpha1.OverrideFreezeAnnotation,
				short(p.in.Revision))
			if why != "" {
				st.Message += "; " + why
			}
			waitFor(pending, "the freeze window closing at "+until.UTC().Format(time.RFC3339))
			p.wakeAt(until)
			if p.prev.Phase != gitopsv1alpha1.RolloutFrozen || p.prev.FrozenUntil == nil || !p.prev.FrozenUntil.Equal(&u) {
				p.event(false, gitopsv1alpha1.EventRolloutFrozen, fmt.Sprintf("a freeze window holds %s for %s until %s",
					short(p.in.Revision), names(pending), until.UTC().Format(time.RFC3339)))
			}
			return false
		}
		p.out.Override = reason
	}
	if w.approval && !p.approved(w.name) {
		st.Phase = gitopsv1alpha1.RolloutWaitingForApproval
		st.Message = fmt.Sprintf("wave %s waits for approval: annotate the SiteSync with %s%s=%s",
			w.name, gitopsv1alpha1.ApproveAnnotationPrefix, w.name, p.in.Revision)
		waitFor(pending, fmt.Sprintf("approval of wave %s (%s%s=%s)", w.name, gitopsv1alpha1.ApproveAnnotationPrefix, w.name,
			short(p.in.Revision)))
		return false
	}
	return true
}

// approved reports whether the annotation approves wave for the revision (full SHA or a prefix of 7 or more).
func (p *planning) approved(wave string) bool {
	v := strings.TrimSpace(p.in.Annotations[gitopsv1alpha1.ApproveAnnotationPrefix+wave])
	return len(v) >= 7 && strings.HasPrefix(p.in.Revision, v)
}

// publish commits the wave's pending sites now, or says it is due when no sync runs this round. A revert
// in this round goes first, in a commit of its own: the sites are published by the next sync.
func (p *planning) publish(w wave, pending []*gitopsv1alpha1.RolloutSite) {
	st := &p.out.Status
	st.Phase, st.Wave = gitopsv1alpha1.RolloutProgressing, w.name
	if !p.in.CanPublish || len(p.out.Revert) > 0 {
		p.out.ActionDue, p.out.Override = true, ""
		st.Message = fmt.Sprintf("wave %s: committing %s for %s", w.name, short(p.in.Revision), names(pending))
		waitFor(pending, "the next sync, which commits it")
		return
	}
	for _, rec := range pending {
		rec.State, rec.PublishedAt, rec.WaitingFor = gitopsv1alpha1.SitePublished, p.now(),
			"Argo CD: Synced and Healthy at the new rendered commit"
		p.out.Publish = append(p.out.Publish, rec.Name)
	}
	if p.r.deadline > 0 {
		p.wakeAt(p.in.Now.Add(p.r.deadline))
	}
	st.Message = fmt.Sprintf("wave %s: committed %s for %s; waiting for Argo CD", w.name, short(p.in.Revision),
		names(pending))
	p.event(false, gitopsv1alpha1.EventWaveStarted,
		fmt.Sprintf("wave %s: committing %s for %s", w.name, short(p.in.Revision), names(pending)))
	if p.out.Override != "" {
		p.event(true, gitopsv1alpha1.EventFreezeOverridden,
			fmt.Sprintf("wave %s published during a freeze window: %s", w.name, p.out.Override))
	}
}

// settled reports whether every published site of the wave is Synced and Healthy and soaked; otherwise it
// says what each waits for, and sets the phase and when to look again.
func (p *planning) settled(w wave, published []*gitopsv1alpha1.RolloutSite) bool {
	st := &p.out.Status
	unhealthy, soaking := 0, 0
	var soakEnd time.Time
	for _, rec := range published {
		s := p.sites[rec.Name]
		if s.Delivery != gitopsv1alpha1.DeliveryDelivered {
			unhealthy++
			rec.WaitingFor = fmt.Sprintf("Argo CD: Synced and Healthy (now %s)", s.Delivery)
			if p.r.deadline > 0 && rec.PublishedAt != nil {
				p.wakeAt(rec.PublishedAt.Add(p.r.deadline))
			}
			continue
		}
		since := s.Since
		if since.IsZero() {
			since = p.in.Now
		}
		// The soak ends on a second, as the status stores it (SoakUntil), so that what is told from it later
		// agrees with what the planner told.
		if end := ceilToSecond(since.Add(w.soak)); end.After(p.in.Now) {
			soaking++
			u := metav1.NewTime(end)
			rec.SoakUntil, rec.WaitingFor = &u, SoakLeft(end, p.in.Now)
			soakEnd = later(soakEnd, end)
			p.wakeAt(end)
			continue
		}
		rec.WaitingFor = ""
	}
	st.Wave = w.name
	switch {
	case unhealthy > 0:
		st.Phase = gitopsv1alpha1.RolloutProgressing
		st.Message = fmt.Sprintf("wave %s: %d of %d sites not yet Synced and Healthy at %s", w.name, unhealthy,
			len(published), short(p.in.Revision))
		return false
	case soaking > 0:
		st.Phase = gitopsv1alpha1.RolloutSoaking
		st.Message = fmt.Sprintf("wave %s: soaking until %s", w.name, soakEnd.UTC().Format(time.RFC3339))
		return false
	}
	return true
}

// laterWavesWait says, for the pending sites of the waves after w, that they wait for w.
func (p *planning) laterWavesWait(w wave) {
	after := false
	for _, o := range p.r.waves {
		if after {
			waitFor(p.members(o.name, gitopsv1alpha1.SitePending), "wave "+w.name)
		}
		after = after || o.name == w.name
	}
}

// waitFor sets what the records wait for.
func waitFor(recs []*gitopsv1alpha1.RolloutSite, what string) {
	for _, rec := range recs {
		rec.WaitingFor = what
	}
}

// names lists the records' site names.
func names(recs []*gitopsv1alpha1.RolloutSite) string {
	out := make([]string, len(recs))
	for i, r := range recs {
		out[i] = r.Name
	}
	return strings.Join(out, ", ")
}

// short abbreviates a commit SHA.
func short(sha string) string {
	if len(sha) > 12 {
		return sha[:12]
	}
	return sha
}

func later(a, b time.Time) time.Time {
	if b.After(a) {
		return b
	}
	return a
}

// SoakLeft is what a site soaking until until waits for at now, "soak, 6m0s left": the time left rounded up
// to the second, so that it counts down by the time that passed and reads 0s only once the soak is over. The
// planner and the views that print it later (siteops status) give it their one clock's now.
func SoakLeft(until, now time.Time) string {
	return fmt.Sprintf("soak, %s left", max(ceilSecond(until.Sub(now)), 0))
}

// ceilToSecond is t rounded up to the second.
func ceilToSecond(t time.Time) time.Time {
	if u := t.Truncate(time.Second); u.Before(t) {
		return u.Add(time.Second)
	}
	return t
}

// ceilSecond is d rounded up to the second.
func ceilSecond(d time.Duration) time.Duration {
	if r := d % time.Second; r > 0 {
		d += time.Second - r
	}
	return d
}
