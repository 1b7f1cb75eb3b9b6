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

func berlin(t *testing.T, s string) time.Time {
	t.Helper()
	loc, err := time.LoadLocation("Europe/Berlin")
	if err != nil {
		t.Fatal(err)
	}
	v, err := time.ParseInLocation("2006-01-02 15:04", s, loc)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// TestFreezeWindowsOpenAndCloseAcrossDST: windows read in Europe/Berlin open at the schedule's wall-clock time
// and stay open for the duration as elapsed time, on the nights the clocks go forward (29 March 2026) and
// back (25 October 2026).
func TestFreezeWindowsOpenAndCloseAcrossDST(t *testing.T) {
	cases := []struct {
		name     string
		schedule string
		duration time.Duration
		now      string // Berlin wall clock
		until    string // Berlin wall clock; "" = not frozen
	}{
		{"before a daily 22:00 window", "0 22 * * *", 8 * time.Hour, "2026-10-24 21:59", ""},
		{"window opens the night the clocks go back", "0 22 * * *", 8 * time.Hour, "2026-10-24 22:00", "2026-10-25 05:00"},
		{"8 elapsed hours end at 05:00 CET, not 06:00", "0 22 * * *", 8 * time.Hour, "2026-10-25 04:59", "2026-10-25 05:00"},
		{"closed after the window", "0 22 * * *", 8 * time.Hour, "2026-10-25 05:00", ""},
		{"window opens the night the clocks go forward", "0 22 * * *", 8 * time.Hour, "2026-03-28 23:00", "2026-03-29 07:00"},
		{"8 elapsed hours end at 07:00 CEST", "0 22 * * *", 8 * time.Hour, "2026-03-29 06:30", "2026-03-29 07:00"},
		{"a 01:00 window the day after the change opens at 01:00 CEST", "0 1 * * *", time.Hour, "2026-03-30 01:30",
			"2026-03-30 02:00"},
		{"and not an hour early", "0 1 * * *", time.Hour, "2026-03-30 00:30", ""},
		{"weekend freeze Friday 18:00 for 62h", "0 18 * * 5", 62 * time.Hour, "2026-03-29 12:00", "2026-03-30 09:00"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := compile(t, gitopsv1alpha1.RolloutSpec{Freeze: []gitopsv1alpha1.FreezeWindow{{
				Schedule: tc.schedule, Duration: *dur(tc.duration), TimeZone: "Europe/Berlin"}}})
			got := r.frozenUntil(berlin(t, tc.now))
			switch {
			case tc.until == "" && !got.IsZero():
				t.Errorf("frozen until %s, want not frozen", got)
			case tc.until != "" && !got.Equal(berlin(t, tc.until)):
				t.Errorf("frozen until %s, want %s", got, berlin(t, tc.until))
			}
		})
	}
}

// TestFreezeWindowsWithoutAGapEnd: windows that overlap or abut count as one; windows that never leave a gap
// (every minute for an hour, every hour for an hour) are followed up to maxFreezeAhead and the answer comes
// back, rather than walking the schedule for ever.
func TestFreezeWindowsWithoutAGapEnd(t *testing.T) {
	now := time.Date(2026, 5, 1, 10, 30, 0, 0, time.UTC)
	cases := []struct {
		name     string
		schedule string
		duration time.Duration
		min, max time.Time // the answer lies in [min, max]
	}{
		{"two overlapping hours, then a gap", "0 9,10 * * *", 2 * time.Hour, now.Add(90 * time.Minute),
			now.Add(90 * time.Minute)},
		{"every minute for an hour", "* * * * *", time.Hour, now.Add(maxFreezeAhead), now.Add(maxFreezeAhead + time.Hour)},
		{"every hour for an hour", "0 * * * *", time.Hour, now.Add(maxFreezeAhead), now.Add(maxFreezeAhead + time.Hour)},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := compile(t, gitopsv1alpha1.RolloutSpec{Freeze: []gitopsv1alpha1.FreezeWindow{{
				Schedule: tc.schedule, Duration: *dur(tc.duration), TimeZone: "UTC"}}})
			if got := r.frozenUntil(now); got.Before(tc.min) || got.After(tc.max) {
				t.Errorf("frozen until %s, want between %s and %s", got, tc.min, tc.max)
			}
		})
	}
}

// TestPlanFreeze: an open window holds the publish (Frozen, until when, one event) and wakes at its end;
// the window closing publishes; the override annotation publishes during the window with its reason.
func TestPlanFreeze(t *testing.T) {
	spec := twoWaves()
	spec.Freeze = []gitopsv1alpha1.FreezeWindow{{Schedule: "0 22 * * *", Duration: *dur(8 * time.Hour),
		TimeZone: "Europe/Berlin"}}
	r := compile(t, spec)
	night := berlin(t, "2026-10-24 23:00")
	closes := berlin(t, "2026-10-25 05:00")

	p := r.Plan(Input{Revision: rev1, Sites: fleet(), Now: night, CanPublish: true})
	if p.Status.Phase != gitopsv1alpha1.RolloutFrozen || len(p.Publish) != 0 || !p.Status.FrozenUntil.Time.Equal(closes) {
		t.Fatalf("phase %s publish %v until %v", p.Status.Phase, p.Publish, p.Status.FrozenUntil)
	}
	if p.WakeAfter != closes.Sub(night) || p.WakeAfter != 7*time.Hour {
		t.Errorf("wake after %s, want 7h (6h of wall clock plus the hour the clocks go back)", p.WakeAfter)
	}
	if got := site(t, p.Status, "dev").WaitingFor; !strings.Contains(got,
		"freeze window closing at 2026-10-25T04:00:00Z") {
		t.Errorf("dev waits for %q", got)
	}
	if strings.Join(reasons(p), ",") != gitopsv1alpha1.EventRolloutFrozen {
		t.Errorf("events %v", p.Events)
	}
	// Still frozen an hour later: no second event.
	p = r.Plan(Input{Revision: rev1, Sites: fleet(), Previous: &p.Status, Now: night.Add(time.Hour), CanPublish: true})
	if p.Status.Phase != gitopsv1alpha1.RolloutFrozen || len(p.Events) != 0 {
		t.Errorf("an hour later: phase %s events %v", p.Status.Phase, p.Events)
	}
	frozen := p.Status
	// The window closes: wave canary is published.
	p = r.Plan(Input{Revision: rev1, Sites: fleet(), Previous: &frozen, Now: closes, CanPublish: true})
	if strings.Join(p.Publish, ",") != "dev" || p.Override != "" {
		t.Errorf("at the close: publish %v override %q", p.Publish, p.Override)
	}
	// The override publishes during the window, with its reason.
	ann := map[string]string{gitopsv1alpha1.OverrideFreezeAnnotation: rev1[:12] + " INC-4711 hotfix"}
	p = r.Plan(Input{Revision: rev1, Sites: fleet(), Previous: &frozen, Now: night.Add(2 * time.Hour), CanPublish: true,
		Annotations: ann})
	if strings.Join(p.Publish, ",") != "dev" || p.Override != "INC-4711 hotfix" {
		t.Errorf("override: publish %v override %q", p.Publish, p.Override)
	}
	if got := strings.Join(reasons(p), ","); got != gitopsv1alpha1.EventWaveStarted+","+
		gitopsv1alpha1.EventFreezeOverridden {
		t.Errorf("override events %v", p.Events)
	}
}

// TestCompileRejectsWhatAdmissionCannotJudge: an unknown time zone, a schedule robfig/cron cannot read and
// an unpaired bracket name their field.
func TestCompileRejectsWhatAdmissionCannotJudge(t *testing.T) {
	cases := []struct {
		name  string
		spec  gitopsv1alpha1.RolloutSpec
		field string
	}{
		{"unknown zone", gitopsv1alpha1.RolloutSpec{Freeze: []gitopsv1alpha1.FreezeWindow{{Schedule: "0 1 * * *",
			Duration: *dur(time.Hour), TimeZone: "Europe/Nowhere"}}}, "spec.freeze[0]: timeZone"},
		{"minute 61", gitopsv1alpha1.RolloutSpec{Freeze: []gitopsv1alpha1.FreezeWindow{{Schedule: "61 1 * * *",
			Duration: *dur(time.Hour)}}}, "spec.freeze[0]: schedule"},
		{"open bracket", gitopsv1alpha1.RolloutSpec{Waves: []gitopsv1alpha1.Wave{{Name: "a", Sites: []string{"dev",
			"eu-[a"}}}}, "spec.waves[0].sites[1]"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Compile(tc.spec)
			if err == nil || !strings.Contains(err.Error(), tc.field) {
				t.Errorf("error %v, want it to name %s", err, tc.field)
			}
		})
	}
}

// TestPlanFreezeOverrideIsForOneRevision: the override annotation, "<revision> <reason>", publishes only the
// revision it names (the full SHA or a prefix of 7 or more); for any other revision, or without a reason, the
// window holds and the message says what to annotate and why the annotation set does not count.
func TestPlanFreezeOverrideIsForOneRevision(t *testing.T) {
	spec := twoWaves()
	spec.Freeze = []gitopsv1alpha1.FreezeWindow{{Schedule: "0 22 * * *", Duration: *dur(8 * time.Hour)}}
	r := compile(t, spec)
	night := time.Date(2026, 3, 2, 23, 0, 0, 0, time.UTC)
	cases := []struct {
		value, reason, why string
	}{
		{rev1 + " INC-1 hotfix", "INC-1 hotfix", ""},
		{"  " + rev1[:7] + "   INC-1   hotfix ", "INC-1 hotfix", ""},
		{rev2[:12] + " INC-1 hotfix", "", "is for another revision"},
		{"INC-1 hotfix", "", "is for another revision"},
		{rev1[:6] + " INC-1 hotfix", "", "is for another revision"},
		{rev1[:12], "", "gives no reason"},
	}
	for _, tc := range cases {
		ann := map[string]string{gitopsv1alpha1.OverrideFreezeAnnotation: tc.value}
		p := r.Plan(Input{Revision: rev1, Sites: fleet(), Now: night, CanPublish: true, Annotations: ann})
		if p.Override != tc.reason {
			t.Errorf("%q: override %q, want %q", tc.value, p.Override, tc.reason)
		}
		if tc.reason != "" {
			if strings.Join(p.Publish, ",") != "dev" {
				t.Errorf("%q: publish %v, want dev", tc.value, p.Publish)
			}
			continue
		}
		if p.Status.Phase != gitopsv1alpha1.RolloutFrozen || len(p.Publish) != 0 {
			t.Errorf("%q: phase %s publish %v, want Frozen and nothing", tc.value, p.Status.Phase, p.Publish)
		}
		hint := gitopsv1alpha1.OverrideFreezeAnnotation + `="` + rev1[:12] + ` <reason>"`
		if !strings.Contains(p.Status.Message, hint) || !strings.Contains(p.Status.Message, tc.why) {
			t.Errorf("%q: message %q lacks %q or %q", tc.value, p.Status.Message, hint, tc.why)
		}
	}
}
