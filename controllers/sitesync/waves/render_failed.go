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

// renderFailedWaits is what a site whose overlay failed to render for reason waits for.
func renderFailedWaits(reason string) string {
	return "a newer revision; render failed: " + reason
}

// renderFailed reports whether rec is Failed because its site's overlay failed to render at the revision.
func (p *planning) renderFailed(rec *gitopsv1alpha1.RolloutSite) bool {
	return rec.State == gitopsv1alpha1.SiteFailed && p.sites[rec.Name].RenderFailed != ""
}

// renderHalt halts the rollout once every wave is done when sites failed to render at the revision: their
// folders keep an older output, so the revision does not run everywhere it should and the rollout is not
// Complete. The halt is at the first wave with such a site; there is nothing to revert. It reports whether it
// halted.
func (p *planning) renderHalt() bool {
	var why []string
	wave := ""
	for _, w := range p.r.waves {
		for _, rec := range p.members(w.name, gitopsv1alpha1.SiteFailed) {
			if p.renderFailed(rec) {
				why = append(why, fmt.Sprintf("%s failed to render at %s (%s)", rec.Name, short(p.in.Revision),
					p.sites[rec.Name].RenderFailed))
				if wave == "" {
					wave = w.name
				}
			}
		}
	}
	if len(why) == 0 {
		return false
	}
	st := &p.out.Status
	st.Phase, st.Wave = gitopsv1alpha1.RolloutHalted, wave
	st.Message = fmt.Sprintf("halted at wave %s: %s; every other site %s changes runs it, push a fix", wave,
		strings.Join(why, "; "), short(p.in.Revision))
	p.event(true, gitopsv1alpha1.EventRolloutHalted, st.Message)
	p.haltedSites()
	return true
}
