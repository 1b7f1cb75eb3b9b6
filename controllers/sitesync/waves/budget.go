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

// failedState reports whether a site in state failed at the revision: Failed, Halted or Reverted.
func failedState(state gitopsv1alpha1.SiteRolloutState) bool {
	switch state {
	case gitopsv1alpha1.SiteFailed, gitopsv1alpha1.SiteHalted, gitopsv1alpha1.SiteReverted:
		return true
	}
	return false
}

// usage is how many of wave w's changed sites failed at the revision so far, and how many may (its budget). A
// site whose overlay failed to render is not in it: it halts the rollout once the waves are done (renderHalt).
func (p *planning) usage(w wave) (used, budget int) {
	size := 0
	for _, rec := range p.members(w.name, "") {
		if rec.State == gitopsv1alpha1.SiteUnchanged || p.renderFailed(rec) {
			continue
		}
		size++
		if failedState(rec.State) {
			used++
		}
	}
	return used, w.budget(size)
}

// tolerate lets the newly failed sites of wave w fail alone when the wave's maxFailures allows it: each is
// Failed, or reverted with onFailure Revert, and the rollout goes on. It reports false and changes nothing
// when the failures are past the budget; the canary has none.
func (p *planning) tolerate(w wave, failed map[*gitopsv1alpha1.RolloutSite]string) bool {
	used, budget := p.usage(w)
	if used+len(failed) > budget {
		return false
	}
	for _, rec := range p.members(w.name, gitopsv1alpha1.SitePublished) {
		msg, ok := failed[rec]
		if !ok {
			continue
		}
		used++
		rec.State = gitopsv1alpha1.SiteFailed
		rec.WaitingFor = fmt.Sprintf("a newer revision; failed within maxFailures (%d/%d failures of wave %s): %s",
			used, budget, w.name, msg)
		p.event(true, gitopsv1alpha1.EventFailureTolerated, fmt.Sprintf("wave %s: %s; %d/%d failures, the rollout "+
			"goes on", w.name, msg, used, budget))
	}
	return true
}

// revertFailed reverts the Failed sites of wave w with onFailure Revert, keeping why they failed.
func (p *planning) revertFailed(w wave) {
	if p.r.onFailure != gitopsv1alpha1.OnFailureRevert {
		return
	}
	for _, rec := range p.members(w.name, gitopsv1alpha1.SiteFailed) {
		if !p.renderFailed(rec) { // its folder was never written: there is nothing to revert
			p.revert(rec)
		}
	}
}

// budgetNote says how a halt relates to the wave's maxFailures: that the canary tolerates none, or how many
// of its sites failed against how many may; empty for a wave without maxFailures.
func (p *planning) budgetNote(w wave, failed int) string {
	switch {
	case w.maxFailures == nil:
		return ""
	case w.canary:
		return fmt.Sprintf(" (wave %s is the canary: any failure halts, whatever its maxFailures)", w.name)
	}
	used, budget := p.usage(w)
	return fmt.Sprintf(" (%d failures in wave %s, maxFailures %d)", used+failed, w.name, budget)
}

// toleratedNote sums up the failures each wave tolerated so far, as "; failures tolerated: edge 1/2"; empty
// when none did.
func (p *planning) toleratedNote() string {
	var parts []string
	for _, w := range p.r.waves {
		if used, budget := p.usage(w); used > 0 && budget > 0 {
			parts = append(parts, fmt.Sprintf("%s %d/%d", w.name, used, budget))
		}
	}
	if len(parts) == 0 {
		return ""
	}
	return "; failures tolerated: " + strings.Join(parts, ", ")
}

// toleratedSites are the sites that failed within their wave's budget, by name.
func (p *planning) toleratedSites() []*gitopsv1alpha1.RolloutSite {
	var out []*gitopsv1alpha1.RolloutSite
	for _, w := range p.r.waves {
		for _, rec := range p.members(w.name, "") {
			if (rec.State == gitopsv1alpha1.SiteFailed || rec.State == gitopsv1alpha1.SiteReverted) && !p.renderFailed(rec) {
				out = append(out, rec)
			}
		}
	}
	return out
}
