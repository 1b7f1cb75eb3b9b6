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

	gitopsv1alpha1 "github.com/siteops/siteops/apis/gitops/v1alpha1"
)

// failures are the published sites of wave w that are Degraded, or not Synced and Healthy within the
// progress deadline (a site once Delivered at the revision has met it), with why.
func (p *planning) failures(w wave) map[*gitopsv1alpha1.RolloutSite]string {
	out := map[*gitopsv1alpha1.RolloutSite]string{}
	for _, rec := range p.members(w.name, gitopsv1alpha1.SitePublished) {
		s := p.sites[rec.Name]
		switch {
		case s.Delivery == gitopsv1alpha1.DeliveryDegraded:
			out[rec] = fmt.Sprintf("%s Degraded at %s: %s", rec.Name, short(p.in.Revision), s.Message)
		case p.r.deadline > 0 && s.Delivery != gitopsv1alpha1.DeliveryDelivered && rec.DeliveredAt == nil &&
			rec.PublishedAt != nil && !p.in.Now.Before(rec.PublishedAt.Add(p.r.deadline)):
			out[rec] = fmt.Sprintf("%s not Synced and Healthy within progressDeadline %s (now %s): %s",
				rec.Name, p.r.deadline, s.Delivery, s.Message)
		}
	}
	return out
}

// halt stops the rollout at wave w for the failed sites: they are Halted (or reverted, with onFailure
// Revert), and every pending site waits for a newer revision.
func (p *planning) halt(w wave, failed map[*gitopsv1alpha1.RolloutSite]string) {
	var why []string
	for _, rec := range p.members(w.name, gitopsv1alpha1.SitePublished) {
		if msg, ok := failed[rec]; ok {
			why = append(why, msg)
		}
	}
	p.haltWith(w, failed, strings.Join(why, "; ")+p.budgetNote(w, len(failed)))
}

// haltWith halts the rollout at wave w for the failed sites, saying why in the status and the event.
func (p *planning) haltWith(w wave, failed map[*gitopsv1alpha1.RolloutSite]string, why string) {
	st := &p.out.Status
	st.Phase, st.Wave = gitopsv1alpha1.RolloutHalted, w.name
	for _, rec := range p.members(w.name, gitopsv1alpha1.SitePublished) {
		if msg, ok := failed[rec]; ok {
			rec.State, rec.WaitingFor = gitopsv1alpha1.SiteHalted, msg
		}
	}
	st.Message = fmt.Sprintf("halted at wave %s: %s; later waves do not get %s, push a fix", w.name, why,
		short(p.in.Revision))
	p.event(true, gitopsv1alpha1.EventRolloutHalted, st.Message)
	p.haltedSites()
}

// stayHalted keeps a halted revision halted: nothing is published, and failed sites not yet reverted are
// reverted (with onFailure Revert).
func (p *planning) stayHalted() {
	st := &p.out.Status
	st.Phase, st.Wave, st.Message = gitopsv1alpha1.RolloutHalted, p.prev.Wave, p.prev.Message
	prev := map[string]string{}
	for _, s := range p.prev.Sites {
		prev[s.Name] = s.WaitingFor
	}
	for _, rec := range p.recs {
		if rec.State == gitopsv1alpha1.SiteHalted || rec.State == gitopsv1alpha1.SiteReverted {
			rec.WaitingFor = prev[rec.Name]
		}
	}
	p.haltedSites()
}

// haltedSites reverts the halted sites and those that failed within a budget before (onFailure Revert), and
// tells the pending ones why they wait.
func (p *planning) haltedSites() {
	for _, w := range p.r.waves {
		waitFor(p.members(w.name, gitopsv1alpha1.SitePending),
			fmt.Sprintf("the rollout halted at wave %s: a newer revision", p.out.Status.Wave))
		if p.r.onFailure != gitopsv1alpha1.OnFailureRevert {
			continue
		}
		for _, rec := range p.members(w.name, gitopsv1alpha1.SiteHalted) {
			p.revert(rec)
		}
		p.revertFailed(w)
	}
}

// revert restores rec's last healthy output, when one is known and differs from what the site has; the
// site's message then says from which output to which, and why (what it waited for when it halted or failed).
func (p *planning) revert(rec *gitopsv1alpha1.RolloutSite) {
	s, why := p.sites[rec.Name], rec.WaitingFor
	if rec.LastHealthyCommit == "" || rec.LastHealthyCommit == s.RenderedCommit {
		if !strings.Contains(rec.WaitingFor, "no healthy output") {
			rec.WaitingFor += "; no healthy output of the site is known to revert to"
		}
		return
	}
	if !p.in.CanPublish {
		p.out.ActionDue = true
		return
	}
	p.out.Revert = append(p.out.Revert, Revert{Site: rec.Name, Commit: rec.LastHealthyCommit,
		Revision: rec.LastHealthyRevision, Of: s.RenderedCommit})
	rec.State = gitopsv1alpha1.SiteReverted
	rec.WaitingFor = fmt.Sprintf("reverted from %s to %s (source %s): %s", short(s.RenderedCommit),
		short(rec.LastHealthyCommit), short(rec.LastHealthyRevision), strings.TrimPrefix(why, "a newer revision; "))
	p.event(true, gitopsv1alpha1.EventSiteReverted,
		fmt.Sprintf("site %s: committing its last healthy output %s (source %s) back over %s",
			rec.Name, short(rec.LastHealthyCommit), short(rec.LastHealthyRevision), short(s.RenderedCommit)))
}
