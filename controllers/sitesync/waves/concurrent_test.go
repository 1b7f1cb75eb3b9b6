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

	"k8s.io/apimachinery/pkg/util/intstr"

	gitopsv1alpha1 "github.com/siteops/siteops/apis/gitops/v1alpha1"
)

// TestPlanMaxConcurrentSteps: a wave with maxConcurrent 2 publishes two of its sites (first by name), the next
// as each becomes Synced and Healthy or fails within maxFailures, and the next wave only once all of them
// are done. The sites held back wait for a free slot.
func TestPlanMaxConcurrentSteps(t *testing.T) {
	s := newStepper(t, budgetWaves(ptr(intstr.FromInt32(1)), 2), edgeFleet(5))
	s.step(nil)
	steps := []struct {
		states  map[string]gitopsv1alpha1.DeliveryState
		publish []string
		slot    []string // sites waiting for a free slot
	}{
		{map[string]gitopsv1alpha1.DeliveryState{"dev": "Delivered"}, []string{"edge-1", "edge-2"},
			[]string{"edge-3", "edge-4", "edge-5"}},
		{map[string]gitopsv1alpha1.DeliveryState{"edge-1": "Progressing"}, nil, []string{"edge-3", "edge-4", "edge-5"}},
		{map[string]gitopsv1alpha1.DeliveryState{"edge-1": "Delivered"}, []string{"edge-3"}, []string{"edge-4", "edge-5"}},
		{map[string]gitopsv1alpha1.DeliveryState{"edge-2": "Degraded"}, []string{"edge-4"}, []string{"edge-5"}},
		{map[string]gitopsv1alpha1.DeliveryState{"edge-3": "Delivered", "edge-4": "Delivered"}, []string{"edge-5"}, nil},
		{map[string]gitopsv1alpha1.DeliveryState{"edge-5": "Delivered"}, []string{"prod"}, nil},
	}
	for i, st := range steps {
		p := s.step(st.states)
		if !slices.Equal(p.Publish, st.publish) {
			t.Fatalf("step %d: publish %v, want %v: %s", i, p.Publish, st.publish, p.Status.Message)
		}
		for _, n := range st.slot {
			if got := site(t, p.Status, n); got.State != gitopsv1alpha1.SitePending ||
				got.WaitingFor != "a free slot: wave edge publishes 2 sites at a time" {
				t.Errorf("step %d: %s %s waits for %q", i, n, got.State, got.WaitingFor)
			}
		}
		if len(st.slot) > 0 && (p.Status.Phase != gitopsv1alpha1.RolloutProgressing || p.Status.Wave != "edge" ||
			!strings.Contains(p.Status.Message, "wait for a free slot (maxConcurrent 2)")) {
			t.Errorf("step %d: %s %s %q", i, p.Status.Phase, p.Status.Wave, p.Status.Message)
		}
	}
	if s.state("edge-2") != gitopsv1alpha1.SiteFailed {
		t.Errorf("edge-2 %s, want Failed", s.state("edge-2"))
	}
}

// TestPlanMaxConcurrentHonoursTheGates: a pause holds the next slot's site too.
func TestPlanMaxConcurrentHonoursTheGates(t *testing.T) {
	r := compile(t, budgetWaves(nil, 1))
	sites := set(edgeFleet(2), at("dev", "Delivered"))
	prev := r.Plan(Input{Revision: rev1, Sites: edgeFleet(2), Now: t0, CanPublish: true}).Status
	p := r.Plan(Input{Revision: rev1, Sites: sites, Previous: &prev, Now: t0.Add(1), CanPublish: true,
		Annotations: map[string]string{gitopsv1alpha1.PauseRolloutAnnotation: ""}})
	if len(p.Publish) != 0 || p.Status.Phase != gitopsv1alpha1.RolloutPaused ||
		site(t, p.Status, "edge-1").WaitingFor != "the rollout to resume" ||
		!strings.HasPrefix(site(t, p.Status, "edge-2").WaitingFor, "a free slot") {
		t.Fatalf("paused: publish %v %s edge-1 %q edge-2 %q", p.Publish, p.Status.Phase,
			site(t, p.Status, "edge-1").WaitingFor, site(t, p.Status, "edge-2").WaitingFor)
	}
}
