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

package cronjob

import (
	"testing"
	"time"

	"k8s.io/utils/ptr"
)

// catchUpSchedules are the schedules FuzzPlanCatchUp picks from: regular, irregular, zoned, "@every".
var catchUpSchedules = []struct{ schedule, tz string }{
	{"*/1 * * * *", ""}, {"0 * * * *", ""}, {"30 6-16/4 * * 1-5", ""}, {"0 9,17 * * 1-5", "Europe/Berlin"},
	{"30 1 * * *", "America/New_York"}, {"@every 1h", ""}, {"@every 7m", ""}, {"*/5 * * * *", "Asia/Tokyo"},
}

// FuzzPlanCatchUp runs a controller against planCatchUp with a stopped clock, applying each decision to the
// status the way reconcileRun and recordMissed do, until nothing more is due. Properties: every run is a
// scheduled time after the last run, not after now and not past startingDeadlineSeconds; runs are oldest
// first; a catch-up starts at most maxRuns runs; the controller settles within maxRuns+1 reconciles; a time
// is never both run and missed (runs stay after every missed time the run was planned with).
// Seeds: testdata/fuzz/FuzzPlanCatchUp.
func FuzzPlanCatchUp(f *testing.F) {
	f.Add(uint8(1), uint32(600), uint32(21600), true, uint8(3))
	f.Add(uint8(0), uint32(90), uint32(0), false, uint8(5))
	f.Add(uint8(5), uint32(10081), uint32(10), true, uint8(2))
	base := time.Date(2026, 11, 27, 9, 0, 0, 0, time.UTC)
	f.Fuzz(func(t *testing.T, which uint8, downMinutes, deadlineSeconds uint32, hasDeadline bool, maxRuns uint8) {
		c := catchUpSchedules[int(which)%len(catchUpSchedules)]
		var tz *string
		if c.tz != "" {
			tz = &c.tz
		}
		sched := mustParse(t, c.schedule, tz)
		var deadline *int64
		if hasDeadline {
			deadline = ptr.To(int64(deadlineSeconds % (30 * 24 * 3600)))
		}
		n := 1 + int(maxRuns)%100
		now := base.Add(time.Duration(downMinutes%(60*24*60))*time.Minute + 7*time.Second)
		lastRun, lastMissed := base, time.Time{}
		var w *catchUpWindow
		runs := 0
		for i := 0; ; i++ {
			if i > n+1 {
				t.Fatalf("not settled after %d reconciles", i)
			}
			earliest := lastRun
			if lastMissed.After(earliest) {
				earliest = lastMissed
			}
			p := planCatchUp(sched, earliest, lastRun, now, deadline, n, w)
			if p.CatchUpRuns > n {
				t.Fatalf("catch-up of %d runs, maxRuns %d", p.CatchUpRuns, n)
			}
			if p.Missed > 0 && p.LastMissed.After(lastMissed) {
				lastMissed = p.LastMissed
			}
			w = p.CatchUp
			if p.Run.IsZero() {
				if w != nil {
					t.Fatalf("no run but a catch-up window %+v", w)
				}
				return
			}
			switch {
			case !p.Run.After(lastRun) || p.Run.After(now):
				t.Fatalf("run %s not in (%s, %s]", p.Run, lastRun, now)
			case tooLate(p.Run, now, deadline):
				t.Fatalf("run %s is past the deadline at %s", p.Run, now)
			case w == nil && p.Run.Before(lastMissed):
				t.Fatalf("run %s before the missed %s outside a catch-up", p.Run, lastMissed)
			}
			if c.schedule[0] != '@' && !sched.Next(p.Run.Add(-time.Second)).Equal(p.Run) {
				t.Fatalf("run %s is not a scheduled time", p.Run)
			}
			runs++
			if runs > n {
				t.Fatalf("%d runs with maxRuns %d", runs, n)
			}
			lastRun = p.Run
			if w != nil && !p.Run.Before(w.Until) {
				w = nil
			}
		}
	})
}
