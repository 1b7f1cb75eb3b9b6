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
	"slices"
	"strings"
	"testing"
	"time"

	gitopsv1alpha1 "github.com/siteops/siteops/apis/gitops/v1alpha1"
)

// TestPlanPause: the pause annotation holds every publish (the first wave of a new revision and the next wave
// of a running one) with phase Paused, while a published wave goes on soaking; one RolloutPaused event with
// the reason when set, one RolloutResumed when removed, and the held wave is published on resume.
func TestPlanPause(t *testing.T) {
	r := compile(t, twoWaves())
	pause := map[string]string{gitopsv1alpha1.PauseRolloutAnnotation: "INC-9 investigating"}

	held := r.Plan(Input{Revision: rev1, Sites: fleet(), Annotations: pause, Now: t0, CanPublish: true})
	if held.Status.Phase != gitopsv1alpha1.RolloutPaused || len(held.Publish) != 0 || !held.Status.Paused ||
		!slices.Equal(reasons(held), []string{gitopsv1alpha1.EventRolloutPaused}) ||
		!strings.Contains(held.Events[0].Message, "INC-9 investigating") {
		t.Fatalf("a new revision while paused: %+v publish %v events %v", held.Status, held.Publish, held.Events)
	}
	if got := site(t, held.Status, "dev").WaitingFor; got != "the rollout to resume" {
		t.Errorf("dev waits for %q", got)
	}

	prev := r.Plan(Input{Revision: rev1, Sites: fleet(), Now: t0, CanPublish: true}).Status
	sites := devAt("Delivered", t0.Add(time.Minute), "")
	soaking := r.Plan(Input{Revision: rev1, Sites: sites, Previous: &prev, Annotations: pause,
		Now: t0.Add(5 * time.Minute), CanPublish: true})
	if soaking.Status.Phase != gitopsv1alpha1.RolloutSoaking || len(soaking.Events) != 1 {
		t.Fatalf("a published wave while paused: %s events %v", soaking.Status.Phase, soaking.Events)
	}
	soaked := r.Plan(Input{Revision: rev1, Sites: sites, Previous: &soaking.Status, Annotations: pause,
		Now: t0.Add(12 * time.Minute), CanPublish: true})
	if soaked.Status.Phase != gitopsv1alpha1.RolloutPaused || soaked.Status.Wave != "edge" || len(soaked.Publish) != 0 ||
		slices.Contains(reasons(soaked), gitopsv1alpha1.EventRolloutPaused) {
		t.Fatalf("wave edge while paused: %+v publish %v events %v", soaked.Status, soaked.Publish, soaked.Events)
	}
	resumed := r.Plan(Input{Revision: rev1, Sites: sites, Previous: &soaked.Status, Now: t0.Add(13 * time.Minute),
		CanPublish: true})
	if !slices.Equal(resumed.Publish, []string{"edge-1", "edge-2"}) || resumed.Status.Paused ||
		!slices.Contains(reasons(resumed), gitopsv1alpha1.EventRolloutResumed) {
		t.Fatalf("on resume: %+v publish %v events %v", resumed.Status, resumed.Publish, resumed.Events)
	}
}
