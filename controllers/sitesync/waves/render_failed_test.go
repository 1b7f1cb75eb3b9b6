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
	"strings"
	"testing"
	"time"

	gitopsv1alpha1 "github.com/siteops/siteops/apis/gitops/v1alpha1"
)

// TestPlanARenderFailureIsNeverComplete: a site whose overlay failed to render keeps an older output, so the
// revision does not run there: once every other site is delivered the rollout is Halted, not Complete, the
// site is Failed with the render's reason, the history records the halt with an end, and nothing is
// reverted (its folder was never written). The halt lasts for the revision; a newer one starts again.
func TestPlanARenderFailureIsNeverComplete(t *testing.T) {
	for _, onFailure := range []gitopsv1alpha1.OnFailure{gitopsv1alpha1.OnFailureHalt, gitopsv1alpha1.OnFailureRevert} {
		t.Run(string(onFailure), func(t *testing.T) {
			spec := twoWaves()
			spec.OnFailure = onFailure
			r := compile(t, spec)
			paris := healthyAt("paris", c0, t0.Add(-time.Hour))
			paris.RenderFailed = "KustomizeError"
			sites := []Site{changed("dev"), changed("edge-1"), paris}
			now := t0
			var prev *gitopsv1alpha1.RolloutStatus
			var p Plan
			for range 4 { // canary, its soak, edge, delivered
				p = r.Plan(Input{Revision: rev1, Sites: sites, Previous: prev, Now: now, CanPublish: true})
				sites = after(sites, p, c1, rev1, now)
				for i := range sites {
					if sites[i].Name != "paris" && sites[i].Delivery != gitopsv1alpha1.DeliveryDelivered {
						sites[i].Delivery, sites[i].Since = gitopsv1alpha1.DeliveryDelivered, now
					}
				}
				prev, now = &p.Status, now.Add(11*time.Minute)
			}
			p = r.Plan(Input{Revision: rev1, Sites: sites, Previous: prev, Now: now, CanPublish: true})
			if p.Status.Phase != gitopsv1alpha1.RolloutHalted {
				t.Fatalf("phase %s, want Halted: %s", p.Status.Phase, p.Status.Message)
			}
			if !strings.Contains(p.Status.Message, "paris failed to render at 111111111111 (KustomizeError)") {
				t.Errorf("message %q", p.Status.Message)
			}
			if got := site(t, p.Status, "paris"); got.State != gitopsv1alpha1.SiteFailed ||
				!strings.Contains(got.WaitingFor, "render failed: KustomizeError") {
				t.Errorf("paris %s %q", got.State, got.WaitingFor)
			}
			if len(p.Revert) != 0 || p.ActionDue {
				t.Errorf("revert %v actionDue %v", p.Revert, p.ActionDue)
			}
			if h := p.Status.History[0]; h.Outcome != gitopsv1alpha1.OutcomeHalted || h.EndedAt == nil {
				t.Errorf("history %s ended %v", h.Outcome, h.EndedAt)
			}
			again := r.Plan(Input{Revision: rev1, Sites: sites, Previous: &p.Status, Now: now.Add(time.Hour),
				CanPublish: true})
			if again.Status.Phase != gitopsv1alpha1.RolloutHalted || len(again.Revert) != 0 || len(again.Events) != 0 {
				t.Errorf("next round: phase %s revert %v events %v", again.Status.Phase, again.Revert, again.Events)
			}
		})
	}
}
