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
	"slices"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"k8s.io/apimachinery/pkg/util/intstr"

	gitopsv1alpha1 "github.com/siteops/siteops/apis/gitops/v1alpha1"
)

// budgetWaves is canary (dev) then edge (edge-*, the given maxFailures and maxConcurrent); prod is unlisted.
// No soak, so a wave is done once its sites are Synced and Healthy.
func budgetWaves(maxFailures *intstr.IntOrString, maxConcurrent int32) gitopsv1alpha1.RolloutSpec {
	edge := gitopsv1alpha1.Wave{Name: "edge", Sites: []string{"edge-*"}, MaxFailures: maxFailures}
	if maxConcurrent > 0 {
		edge.MaxConcurrent = &maxConcurrent
	}
	return gitopsv1alpha1.RolloutSpec{Waves: []gitopsv1alpha1.Wave{{Name: "canary", Sites: []string{"dev"}}, edge}}
}

// edgeFleet is dev, edge-1 … edge-n and prod, all changed by rev1.
func edgeFleet(n int) []Site {
	sites := []Site{changed("dev")}
	for i := 1; i <= n; i++ {
		sites = append(sites, changed(fmt.Sprintf("edge-%d", i)))
	}
	return append(sites, changed("prod"))
}

// at is site name at rev1's output (c1) in Argo CD state since t0.
func at(name string, state gitopsv1alpha1.DeliveryState) Site {
	return Site{Name: name, RenderedCommit: c1, PublishedRevision: rev1, Delivery: state, Since: t0,
		Message: "argo says " + string(state)}
}

// stepper drives one revision's rollout plan after plan, as the controller does, with the clock a minute
// further each time.
type stepper struct {
	t     *testing.T
	r     *Rollout
	sites []Site
	prev  *gitopsv1alpha1.RolloutStatus
	now   int
	plan  Plan
}

func newStepper(t *testing.T, spec gitopsv1alpha1.RolloutSpec, sites []Site) *stepper {
	return &stepper{t: t, r: compile(t, spec), sites: sites}
}

// step sets the given sites' Argo CD states, plans with a sync, and applies what the plan publishes and
// reverts to the sites.
func (s *stepper) step(states map[string]gitopsv1alpha1.DeliveryState) Plan {
	return s.stepWith(true, states)
}

func (s *stepper) stepWith(canPublish bool, states map[string]gitopsv1alpha1.DeliveryState) Plan {
	for name, state := range states {
		s.sites = set(s.sites, at(name, state))
	}
	s.now++
	now := t0.Add(time.Duration(s.now) * time.Minute)
	s.plan = s.r.Plan(Input{Revision: rev1, Sites: s.sites, Previous: s.prev, Now: now, CanPublish: canPublish})
	s.sites = after(s.sites, s.plan, c1, rev1, now)
	s.prev = &s.plan.Status
	return s.plan
}

// state is the rollout state of site name in the last plan.
func (s *stepper) state(name string) gitopsv1alpha1.SiteRolloutState {
	return site(s.t, s.plan.Status, name).State
}

// TestPlanFailureBudget is the decision table of maxFailures: the wave's sites fail at once after the wave
// is published; within the budget (a count, or a percentage of the wave's changed sites rounded down) they
// are Failed alone and the rollout goes on to prod; past it the rollout halts. The canary has no budget.
func TestPlanFailureBudget(t *testing.T) {
	count, pct := intstr.FromInt32, intstr.FromString
	cases := []struct {
		name        string
		maxFailures *intstr.IntOrString
		edges       int
		fail        []string
		halt        bool
		note        string
	}{
		{"no maxFailures: one failure halts", nil, 3, []string{"edge-1"}, true, "edge-1 Degraded"},
		{"maxFailures 0 halts", ptr(count(0)), 3, []string{"edge-1"}, true, "(1 failures in wave edge, maxFailures 0)"},
		{"count 1 tolerates one", ptr(count(1)), 3, []string{"edge-2"}, false, "failures tolerated: edge 1/1"},
		{"count 1 halts at two", ptr(count(1)), 3, []string{"edge-1", "edge-3"}, true,
			"(2 failures in wave edge, maxFailures 1)"},
		{"50% of 4 tolerates two", ptr(pct("50%")), 4, []string{"edge-1", "edge-4"}, false, "edge 2/2"},
		{"50% of 3 is one (rounded down): two halt", ptr(pct("50%")), 3, []string{"edge-1", "edge-2"}, true,
			"maxFailures 1"},
		{"34% of 3 is one", ptr(pct("34%")), 3, []string{"edge-3"}, false, "edge 1/1"},
		{"0% halts", ptr(pct("0%")), 3, []string{"edge-3"}, true, "maxFailures 0"},
		{"100% tolerates every site of the wave", ptr(pct("100%")), 2, []string{"edge-1", "edge-2"}, false, "edge 2/2"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s := newStepper(t, budgetWaves(tc.maxFailures, 0), edgeFleet(tc.edges))
			s.step(nil)
			if p := s.step(map[string]gitopsv1alpha1.DeliveryState{"dev": "Delivered"}); len(p.Publish) != tc.edges {
				t.Fatalf("wave edge: publish %v", p.Publish)
			}
			states := map[string]gitopsv1alpha1.DeliveryState{}
			for i := 1; i <= tc.edges; i++ {
				states[fmt.Sprintf("edge-%d", i)] = "Delivered"
			}
			for _, f := range tc.fail {
				states[f] = "Degraded"
			}
			p := s.step(states)
			if !strings.Contains(p.Status.Message, tc.note) {
				t.Errorf("message %q, want it to contain %q", p.Status.Message, tc.note)
			}
			if tc.halt {
				if p.Status.Phase != gitopsv1alpha1.RolloutHalted || len(p.Publish) != 0 ||
					!slices.Equal(reasons(p), []string{gitopsv1alpha1.EventRolloutHalted}) {
					t.Fatalf("want Halted: %s publish %v events %v", p.Status.Phase, p.Publish, reasons(p))
				}
				for _, f := range tc.fail {
					if got := s.state(f); got != gitopsv1alpha1.SiteHalted {
						t.Errorf("%s %s, want Halted", f, got)
					}
				}
				return
			}
			if p.Status.Phase != gitopsv1alpha1.RolloutProgressing || p.Status.Wave != gitopsv1alpha1.ImplicitWave ||
				!slices.Equal(p.Publish, []string{"prod"}) {
				t.Fatalf("want prod published: %s wave %s publish %v: %s", p.Status.Phase, p.Status.Wave, p.Publish,
					p.Status.Message)
			}
			for i, f := range tc.fail {
				got := site(t, p.Status, f)
				want := fmt.Sprintf("failed within maxFailures (%d/%d failures of wave edge)", i+1, len(tc.fail))
				if got.State != gitopsv1alpha1.SiteFailed || !strings.Contains(got.WaitingFor, want) ||
					!strings.Contains(got.WaitingFor, f+" Degraded at") {
					t.Errorf("%s: %s %q, want Failed with %q", f, got.State, got.WaitingFor, want)
				}
			}
			tolerated := 0
			for _, e := range p.Events {
				if e.Reason == gitopsv1alpha1.EventFailureTolerated && e.Warning {
					tolerated++
				}
			}
			if tolerated != len(tc.fail) {
				t.Errorf("%d FailureTolerated warnings, want %d: %v", tolerated, len(tc.fail), p.Events)
			}
		})
	}
}

// TestPlanCanaryToleratesNoFailure: the first wave halts on any failure whatever its maxFailures, and the
// halt says why.
func TestPlanCanaryToleratesNoFailure(t *testing.T) {
	spec := budgetWaves(nil, 0)
	spec.Waves[0].MaxFailures = ptr(intstr.FromString("100%"))
	s := newStepper(t, spec, edgeFleet(2))
	s.step(nil)
	p := s.step(map[string]gitopsv1alpha1.DeliveryState{"dev": "Degraded"})
	if p.Status.Phase != gitopsv1alpha1.RolloutHalted || s.state("dev") != gitopsv1alpha1.SiteHalted ||
		!strings.Contains(p.Status.Message, "wave canary is the canary: any failure halts") {
		t.Fatalf("%s dev %s: %s", p.Status.Phase, s.state("dev"), p.Status.Message)
	}
}

// TestPlanBudgetCarriesOnThenHalts: with maxFailures 1 the rollout continues past one broken site to the next
// wave and halts at the second failure of the same wave; the site that failed first stays Failed. Without a
// second failure the rollout completes and says which site does not run the revision.
func TestPlanBudgetCarriesOnThenHalts(t *testing.T) {
	s := newStepper(t, budgetWaves(ptr(intstr.FromInt32(1)), 0), edgeFleet(3))
	s.step(nil)
	s.step(map[string]gitopsv1alpha1.DeliveryState{"dev": "Delivered"})
	p := s.step(map[string]gitopsv1alpha1.DeliveryState{"edge-1": "Pending", "edge-2": "Degraded", "edge-3": "Pending"})
	if p.Status.Phase != gitopsv1alpha1.RolloutProgressing || p.Status.Wave != "edge" || len(p.Publish) != 0 ||
		s.state("edge-2") != gitopsv1alpha1.SiteFailed {
		t.Fatalf("one failure, others on their way: %s %s publish %v edge-2 %s", p.Status.Phase, p.Status.Wave,
			p.Publish, s.state("edge-2"))
	}
	// Nothing new: no second FailureTolerated event.
	if p = s.step(nil); len(p.Events) != 0 || s.state("edge-2") != gitopsv1alpha1.SiteFailed ||
		!strings.Contains(site(t, p.Status, "edge-2").WaitingFor, "(1/1 failures of wave edge)") {
		t.Fatalf("again: events %v edge-2 %+v", p.Events, site(t, p.Status, "edge-2"))
	}
	complete := *s
	p = s.step(map[string]gitopsv1alpha1.DeliveryState{"edge-1": "Delivered", "edge-3": "Delivered"})
	if !slices.Equal(p.Publish, []string{"prod"}) {
		t.Fatalf("wave edge done within budget: publish %v: %s", p.Publish, p.Status.Message)
	}
	p = s.step(map[string]gitopsv1alpha1.DeliveryState{"prod": "Delivered"})
	if p.Status.Phase != gitopsv1alpha1.RolloutComplete ||
		!strings.Contains(p.Status.Message, "but 1 that failed within their wave's maxFailures: edge-2") {
		t.Fatalf("complete: %s %s", p.Status.Phase, p.Status.Message)
	}

	// The second failure of wave edge halts; edge-2 stays Failed, edge-3 is Halted, prod never gets rev1.
	p = complete.step(map[string]gitopsv1alpha1.DeliveryState{"edge-1": "Delivered", "edge-3": "Degraded"})
	if p.Status.Phase != gitopsv1alpha1.RolloutHalted || len(p.Publish) != 0 ||
		complete.state("edge-3") != gitopsv1alpha1.SiteHalted || complete.state("edge-2") != gitopsv1alpha1.SiteFailed ||
		!strings.Contains(p.Status.Message, "(2 failures in wave edge, maxFailures 1)") {
		t.Fatalf("second failure: %s publish %v edge-2 %s edge-3 %s: %s", p.Status.Phase, p.Publish,
			complete.state("edge-2"), complete.state("edge-3"), p.Status.Message)
	}
}

// TestPlanRevertsToleratedFailures: with onFailure Revert a failure within the budget is reverted alone (due,
// without a sync this round; committed with one) and the rollout goes on; the site is Reverted and says why
// it failed.
func TestPlanRevertsToleratedFailures(t *testing.T) {
	spec := budgetWaves(ptr(intstr.FromInt32(1)), 0)
	spec.OnFailure = gitopsv1alpha1.OnFailureRevert
	s := newStepper(t, spec, edgeFleet(2))
	s.step(nil)
	s.step(map[string]gitopsv1alpha1.DeliveryState{"dev": "Delivered"})
	dry := s.stepWith(false, map[string]gitopsv1alpha1.DeliveryState{"edge-1": "Degraded", "edge-2": "Pending"})
	if !dry.ActionDue || len(dry.Revert) != 0 || s.state("edge-1") != gitopsv1alpha1.SiteFailed ||
		dry.Status.Phase != gitopsv1alpha1.RolloutProgressing {
		t.Fatalf("without a sync: due %v revert %v edge-1 %s phase %s", dry.ActionDue, dry.Revert, s.state("edge-1"),
			dry.Status.Phase)
	}
	p := s.step(nil)
	if want := (Revert{Site: "edge-1", Commit: c0, Revision: old, Of: c1}); !slices.Equal(p.Revert, []Revert{want}) {
		t.Fatalf("revert %+v, want %+v", p.Revert, want)
	}
	got := site(t, p.Status, "edge-1")
	wantWaiting := "reverted from " + short(c1) + " to " + short(c0) + " (source " + short(old) +
		"): failed within maxFailures (1/1 failures of wave edge): "
	if got.State != gitopsv1alpha1.SiteReverted || !strings.HasPrefix(got.WaitingFor, wantWaiting) ||
		!slices.Equal(reasons(p), []string{gitopsv1alpha1.EventSiteReverted}) {
		t.Fatalf("edge-1 %s %q events %v", got.State, got.WaitingFor, reasons(p))
	}
	p = s.step(map[string]gitopsv1alpha1.DeliveryState{"edge-2": "Delivered"})
	if !slices.Equal(p.Publish, []string{"prod"}) || len(p.Revert) != 0 ||
		s.state("edge-1") != gitopsv1alpha1.SiteReverted {
		t.Fatalf("go on: publish %v revert %v edge-1 %s", p.Publish, p.Revert, s.state("edge-1"))
	}
}

// TestPlanRevertGoesInACommitOfItsOwn: when a tolerated failure frees a slot (maxConcurrent 1), the revert
// is committed first and the next site of the wave is due, published by the next sync.
func TestPlanRevertGoesInACommitOfItsOwn(t *testing.T) {
	spec := budgetWaves(ptr(intstr.FromInt32(1)), 1)
	spec.OnFailure = gitopsv1alpha1.OnFailureRevert
	s := newStepper(t, spec, edgeFleet(2))
	s.step(nil)
	if p := s.step(map[string]gitopsv1alpha1.DeliveryState{"dev": "Delivered"}); !slices.Equal(p.Publish,
		[]string{"edge-1"}) {
		t.Fatalf("publish %v, want edge-1 alone", p.Publish)
	}
	p := s.step(map[string]gitopsv1alpha1.DeliveryState{"edge-1": "Degraded"})
	if len(p.Revert) != 1 || len(p.Publish) != 0 || !p.ActionDue ||
		site(t, p.Status, "edge-2").WaitingFor != "the next sync, which commits it" {
		t.Fatalf("revert %v publish %v due %v edge-2 %q", p.Revert, p.Publish, p.ActionDue,
			site(t, p.Status, "edge-2").WaitingFor)
	}
	if p = s.step(nil); len(p.Revert) != 0 || !slices.Equal(p.Publish, []string{"edge-2"}) {
		t.Fatalf("next sync: revert %v publish %v", p.Revert, p.Publish)
	}
}

// TestPlanHaltOfALargeWaveFitsTheStatus: a wave of 200 sites whose budget is exceeded by many failures at
// once, each with a long Argo CD message, halts with a message within status.rollout.message's 2048
// characters, cut at a character boundary.
func TestPlanHaltOfALargeWaveFitsTheStatus(t *testing.T) {
	s := newStepper(t, budgetWaves(ptr(intstr.FromString("10%")), 0), edgeFleet(200))
	s.step(nil)
	s.step(map[string]gitopsv1alpha1.DeliveryState{"dev": "Delivered"})
	states := map[string]gitopsv1alpha1.DeliveryState{}
	for i := 1; i <= 200; i++ {
		states[fmt.Sprintf("edge-%d", i)] = "Degraded"
	}
	for name, state := range states {
		s.sites = set(s.sites, Site{Name: name, RenderedCommit: c1, PublishedRevision: rev1, Delivery: state, Since: t0,
			Message: strings.Repeat("é", 100)})
	}
	p := s.step(nil)
	if p.Status.Phase != gitopsv1alpha1.RolloutHalted {
		t.Fatalf("phase %s, want Halted", p.Status.Phase)
	}
	if n := len(p.Status.Message); n > 2048 || !utf8.ValidString(p.Status.Message) ||
		!strings.HasSuffix(p.Status.Message, " ...") {
		t.Errorf("message of %d bytes, valid UTF-8 %v: ...%s", n, utf8.ValidString(p.Status.Message),
			p.Status.Message[max(0, n-40):])
	}
}

func ptr[T any](v T) *T { return &v }
