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

// fleet is dev (canary), edge-1 and edge-2 (edge) and prod (unlisted), all changed by rev1.
func fleet() []Site {
	return []Site{changed("dev"), changed("edge-1"), changed("edge-2"), changed("prod")}
}

// published is the status after wave canary committed rev1 for dev at t0.
func published(t *testing.T) *gitopsv1alpha1.RolloutStatus {
	t.Helper()
	p := compile(t, twoWaves()).Plan(Input{Revision: rev1, Sites: fleet(), Now: t0, CanPublish: true})
	return &p.Status
}

// devAt is the fleet with dev at c1 (rev1's output) in the given delivery state since since.
func devAt(state gitopsv1alpha1.DeliveryState, since time.Time, msg string) []Site {
	return set(fleet(), Site{Name: "dev", RenderedCommit: c1, PublishedRevision: rev1, Delivery: state, Since: since,
		Message: msg})
}

// TestPlan is the planner's decision table: each row is one call with a fixed clock.
func TestPlan(t *testing.T) {
	type want struct {
		publish    []string
		phase      gitopsv1alpha1.RolloutPhase
		wave       string
		waiting    map[string]string // site → substring of waitingFor
		states     map[string]gitopsv1alpha1.SiteRolloutState
		wake       time.Duration
		events     []string
		actionDue  bool
		msgContain string
	}
	cases := []struct {
		name string
		spec gitopsv1alpha1.RolloutSpec
		in   func(t *testing.T) Input
		want want
	}{{
		name: "waves in order: a change of every site publishes the first wave only",
		spec: twoWaves(),
		in:   func(*testing.T) Input { return Input{Revision: rev1, Sites: fleet(), Now: t0, CanPublish: true} },
		want: want{publish: []string{"dev"}, phase: gitopsv1alpha1.RolloutProgressing, wave: "canary",
			waiting: map[string]string{"edge-1": "wave canary", "prod": "wave canary", "dev": "Argo CD"},
			states:  map[string]gitopsv1alpha1.SiteRolloutState{"dev": "Published", "edge-1": "Pending", "prod": "Pending"},
			events:  []string{gitopsv1alpha1.EventWaveStarted}},
	}, {
		name: "a wave the revision does not change is skipped",
		spec: twoWaves(),
		in: func(*testing.T) Input {
			return Input{Revision: rev1, Sites: []Site{healthyAt("dev", c0, t0), changed("edge-1"), healthyAt("edge-2", c0,
				t0)}, Now: t0, CanPublish: true}
		},
		want: want{publish: []string{"edge-1"}, phase: gitopsv1alpha1.RolloutProgressing, wave: "edge",
			states: map[string]gitopsv1alpha1.SiteRolloutState{"dev": "Unchanged", "edge-2": "Unchanged"},
			events: []string{gitopsv1alpha1.EventWaveStarted}},
	}, {
		name: "published and not yet healthy: the wave waits for Argo CD",
		spec: twoWaves(),
		in: func(t *testing.T) Input {
			return Input{Revision: rev1, Sites: devAt("Pending", t0, ""), Previous: published(t), Now: t0.Add(time.Minute),
				CanPublish: true}
		},
		want: want{phase: gitopsv1alpha1.RolloutProgressing, wave: "canary",
			waiting: map[string]string{"dev": "Synced and Healthy (now Pending)", "edge-1": "wave canary"}},
	}, {
		name: "soak: healthy for 4 of 10 minutes, 6 left, wake at the soak's end",
		spec: twoWaves(),
		in: func(t *testing.T) Input {
			return Input{Revision: rev1, Sites: devAt("Delivered", t0.Add(time.Minute), ""), Previous: published(t),
				Now: t0.Add(5 * time.Minute), CanPublish: true}
		},
		want: want{phase: gitopsv1alpha1.RolloutSoaking, wave: "canary", wake: 6 * time.Minute,
			waiting: map[string]string{"dev": "soak, 6m0s left", "edge-2": "wave canary"}},
	}, {
		name: "soak over: wave canary finishes, wave edge is published; prod still waits",
		spec: twoWaves(),
		in: func(t *testing.T) Input {
			return Input{Revision: rev1, Sites: devAt("Delivered", t0.Add(time.Minute), ""), Previous: published(t),
				Now: t0.Add(11 * time.Minute), CanPublish: true}
		},
		want: want{publish: []string{"edge-1", "edge-2"}, phase: gitopsv1alpha1.RolloutProgressing, wave: "edge",
			waiting: map[string]string{"prod": "wave edge"},
			events:  []string{gitopsv1alpha1.EventWaveFinished, gitopsv1alpha1.EventWaveStarted}},
	}, {
		name: "no sync this round: the due publish is reported, nothing changes",
		spec: twoWaves(),
		in: func(t *testing.T) Input {
			return Input{Revision: rev1, Sites: devAt("Delivered", t0.Add(time.Minute), ""), Previous: published(t),
				Now: t0.Add(11 * time.Minute)}
		},
		want: want{phase: gitopsv1alpha1.RolloutProgressing, wave: "edge", actionDue: true,
			states:  map[string]gitopsv1alpha1.SiteRolloutState{"edge-1": "Pending"},
			waiting: map[string]string{"edge-1": "next sync"}, events: []string{gitopsv1alpha1.EventWaveFinished}},
	}, {
		name: "newest wins: rev2 changes dev again while it soaks rev1; dev gets rev2, edge never gets rev1",
		spec: twoWaves(),
		in: func(t *testing.T) Input {
			sites := devAt("Delivered", t0.Add(time.Minute), "")
			sites[0].Changed = true
			return Input{Revision: rev2, Sites: sites, Previous: published(t), Now: t0.Add(5 * time.Minute), CanPublish: true}
		},
		want: want{publish: []string{"dev"}, phase: gitopsv1alpha1.RolloutProgressing, wave: "canary",
			waiting: map[string]string{"edge-1": "wave canary"}, events: []string{gitopsv1alpha1.EventWaveStarted}},
	}, {
		name: "newest wins: rev2 leaves dev alone while it soaks rev1; edge waits for that soak",
		spec: twoWaves(),
		in: func(t *testing.T) Input {
			return Input{Revision: rev2, Sites: devAt("Delivered", t0.Add(time.Minute), ""), Previous: published(t),
				Now: t0.Add(5 * time.Minute), CanPublish: true}
		},
		want: want{phase: gitopsv1alpha1.RolloutSoaking, wave: "canary", wake: 6 * time.Minute,
			states:  map[string]gitopsv1alpha1.SiteRolloutState{"dev": "Published", "edge-1": "Pending"},
			waiting: map[string]string{"edge-1": "wave canary"}},
	}, {
		name: "sites in no wave form the implicit last wave",
		spec: twoWaves(),
		in: func(*testing.T) Input {
			return Input{Revision: rev1, Sites: []Site{healthyAt("dev", c0, t0), changed("prod"), changed("zz-lab")}, Now: t0,
				CanPublish: true}
		},
		want: want{publish: []string{"prod", "zz-lab"}, wave: gitopsv1alpha1.ImplicitWave,
			phase:  gitopsv1alpha1.RolloutProgressing,
			events: []string{gitopsv1alpha1.EventWaveStarted}},
	}, {
		name: "approval gate: wave canary waits for the annotation naming it and the revision",
		spec: approvalWaves(),
		in: func(*testing.T) Input {
			return Input{Revision: rev1, Sites: fleet(), Now: t0, CanPublish: true,
				Annotations: map[string]string{"siteops.dev/approve-canary": rev2[:12], "siteops.dev/approve-edge": rev1}}
		},
		want: want{phase: gitopsv1alpha1.RolloutWaitingForApproval, wave: "canary",
			waiting: map[string]string{"dev": "approval of wave canary (siteops.dev/approve-canary=111111111111)",
				"edge-1": "wave canary"},
			msgContain: "siteops.dev/approve-canary=" + rev1},
	}, {
		name: "approval gate: a 7-character prefix of the revision approves",
		spec: approvalWaves(),
		in: func(*testing.T) Input {
			return Input{Revision: rev1, Sites: fleet(), Now: t0, CanPublish: true,
				Annotations: map[string]string{"siteops.dev/approve-canary": rev1[:7]}}
		},
		want: want{publish: []string{"dev"}, phase: gitopsv1alpha1.RolloutProgressing, wave: "canary",
			events: []string{gitopsv1alpha1.EventWaveStarted}},
	}, {
		name: "complete: every changed site published, healthy and soaked",
		spec: twoWaves(),
		in: func(t *testing.T) Input {
			p := compile(t, twoWaves()).Plan(Input{Revision: rev1, Sites: []Site{changed("dev")}, Now: t0, CanPublish: true})
			sites := []Site{{Name: "dev", RenderedCommit: c1, PublishedRevision: rev1, Delivery: "Delivered", Since: t0}}
			return Input{Revision: rev1, Sites: sites, Previous: &p.Status, Now: t0.Add(10 * time.Minute), CanPublish: true}
		},
		want: want{phase: gitopsv1alpha1.RolloutComplete, events: []string{gitopsv1alpha1.EventWaveFinished},
			states: map[string]gitopsv1alpha1.SiteRolloutState{"dev": "Published"}},
	}}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			p := compile(t, tc.spec).Plan(tc.in(t))
			w := tc.want
			if strings.Join(p.Publish, ",") != strings.Join(w.publish, ",") {
				t.Errorf("publish %v, want %v", p.Publish, w.publish)
			}
			if p.Status.Phase != w.phase || (w.wave != "" && p.Status.Wave != w.wave) {
				t.Errorf("phase %s wave %s, want %s %s (%s)", p.Status.Phase, p.Status.Wave, w.phase, w.wave, p.Status.Message)
			}
			for name, sub := range w.waiting {
				if got := site(t, p.Status, name).WaitingFor; !strings.Contains(got, sub) {
					t.Errorf("%s waits for %q, want it to contain %q", name, got, sub)
				}
			}
			for name, st := range w.states {
				if got := site(t, p.Status, name).State; got != st {
					t.Errorf("%s is %s, want %s", name, got, st)
				}
			}
			if p.WakeAfter != w.wake {
				t.Errorf("wake after %s, want %s", p.WakeAfter, w.wake)
			}
			if strings.Join(reasons(p), ",") != strings.Join(w.events, ",") {
				t.Errorf("events %v, want %v", p.Events, w.events)
			}
			if p.ActionDue != w.actionDue {
				t.Errorf("actionDue %v, want %v", p.ActionDue, w.actionDue)
			}
			if !strings.Contains(p.Status.Message, w.msgContain) {
				t.Errorf("message %q, want it to contain %q", p.Status.Message, w.msgContain)
			}
		})
	}
}

// approvalWaves is twoWaves with approval on both waves.
func approvalWaves() gitopsv1alpha1.RolloutSpec {
	s := twoWaves()
	s.Waves[0].RequireApproval, s.Waves[1].RequireApproval = true, true
	return s
}

// TestPlanWalksTheWholeFleetWaveByWave drives one revision from the first wave to Complete with a fixed clock:
// each site is published only after every earlier wave is healthy and soaked, never twice.
func TestPlanWalksTheWholeFleetWaveByWave(t *testing.T) {
	r := compile(t, twoWaves())
	sites, now := fleet(), t0
	var prev *gitopsv1alpha1.RolloutStatus
	var order []string
	for round := 0; round < 20; round++ {
		p := r.Plan(Input{Revision: rev1, Sites: sites, Previous: prev, Now: now, CanPublish: true})
		prev = &p.Status
		order = append(order, p.Publish...)
		sites = after(sites, p, c1, rev1, now)
		if p.Status.Phase == gitopsv1alpha1.RolloutComplete {
			break
		}
		// Argo CD syncs every published site a minute later; the clock then jumps to the next wake.
		now = now.Add(time.Minute)
		for i := range sites {
			if sites[i].Delivery == gitopsv1alpha1.DeliveryPending {
				sites[i].Delivery, sites[i].Since = gitopsv1alpha1.DeliveryDelivered, now
			}
		}
		if p.WakeAfter > time.Minute {
			now = now.Add(p.WakeAfter - time.Minute)
		}
	}
	if prev.Phase != gitopsv1alpha1.RolloutComplete {
		t.Fatalf("phase %s after 20 rounds: %s", prev.Phase, prev.Message)
	}
	if got := strings.Join(order, ","); got != "dev,edge-1,edge-2,prod" {
		t.Errorf("published in order %s", got)
	}
	if got := site(t, *prev, "edge-1").PublishedAt.Time; got.Before(t0.Add(11 * time.Minute)) {
		t.Errorf("edge-1 published at %s, before dev's 10m soak ended", got)
	}
}
