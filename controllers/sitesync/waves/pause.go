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

// pause records whether the annotation siteops.dev/pause-rollout pauses the rollout, with an event when it
// was set or removed since the previous plan.
func (p *planning) pause() {
	reason, paused := p.in.Annotations[gitopsv1alpha1.PauseRolloutAnnotation]
	p.out.Status.Paused = paused
	switch {
	case paused && !p.prev.Paused:
		msg := fmt.Sprintf("rollout of %s paused: nothing new is published until %s is removed", short(p.in.Revision),
			gitopsv1alpha1.PauseRolloutAnnotation)
		if r := strings.TrimSpace(reason); r != "" {
			msg += ": " + r
		}
		p.event(false, gitopsv1alpha1.EventRolloutPaused, msg)
	case !paused && p.prev.Paused:
		p.event(false, gitopsv1alpha1.EventRolloutResumed, fmt.Sprintf("rollout of %s resumed", short(p.in.Revision)))
	}
}

// held reports whether the pause holds wave w's pending sites, and then says so in the status.
func (p *planning) held(w wave, pending []*gitopsv1alpha1.RolloutSite) bool {
	if !p.out.Status.Paused {
		return false
	}
	st := &p.out.Status
	st.Phase = gitopsv1alpha1.RolloutPaused
	st.Message = fmt.Sprintf("wave %s waits: the rollout is paused (remove the annotation %s or run siteops rollout "+
		"resume)", w.name, gitopsv1alpha1.PauseRolloutAnnotation)
	waitFor(pending, "the rollout to resume")
	return true
}
