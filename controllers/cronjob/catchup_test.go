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

	. "github.com/onsi/gomega"
	"github.com/robfig/cron/v3"
	"k8s.io/utils/ptr"

	batchv1 "github.com/siteops/siteops/apis/batch/v1"
)

// TestDueWithin: only the times at or after the deadline cutoff are counted; "@every" stays on its chain.
func TestDueWithin(t *testing.T) {
	for _, tc := range []struct {
		name                  string
		schedule              string
		earliest, cutoff, now time.Time
		count                 int
		latest, previous      time.Time
	}{
		{"no cutoff: as dueTimes", "*/5 * * * *", utc(2026, 11, 30, 10, 0, 0), time.Time{}, utc(2026, 11, 30, 10, 20, 30),
			4, utc(2026, 11, 30, 10, 20, 0), utc(2026, 11, 30, 10, 15, 0)},
		{"cutoff on a scheduled time: included", "*/5 * * * *", utc(2026, 11, 30, 10, 0, 0), utc(2026, 11, 30, 10, 10, 0),
			utc(2026, 11, 30, 10, 20, 30), 3, utc(2026, 11, 30, 10, 20, 0), utc(2026, 11, 30, 10, 15, 0)},
		{"cutoff a second after: excluded", "*/5 * * * *", utc(2026, 11, 30, 10, 0, 0), utc(2026, 11, 30, 10, 10, 1),
			utc(2026, 11, 30, 10, 20, 30), 2, utc(2026, 11, 30, 10, 20, 0), utc(2026, 11, 30, 10, 15, 0)},
		{"cutoff before earliest", "*/5 * * * *", utc(2026, 11, 30, 10, 0, 0), utc(2026, 11, 30, 9, 0, 0),
			utc(2026, 11, 30, 10, 11, 0), 2, utc(2026, 11, 30, 10, 10, 0), utc(2026, 11, 30, 10, 5, 0)},
		{"@every on its chain", "@every 5m", utc(2026, 11, 30, 10, 2, 0), utc(2026, 11, 30, 10, 12, 0),
			utc(2026, 11, 30, 10, 23, 0), 3, utc(2026, 11, 30, 10, 22, 0), utc(2026, 11, 30, 10, 17, 0)},
		{"@every cutoff between chain times", "@every 5m", utc(2026, 11, 30, 10, 2, 0), utc(2026, 11, 30, 10, 13, 0),
			utc(2026, 11, 30, 10, 23, 0), 2, utc(2026, 11, 30, 10, 22, 0), utc(2026, 11, 30, 10, 17, 0)},
		{"@every one left", "@every 5m", utc(2026, 11, 30, 10, 2, 0), utc(2026, 11, 30, 10, 18, 0),
			utc(2026, 11, 30, 10, 23, 0), 1, utc(2026, 11, 30, 10, 22, 0), time.Time{}},
		{"@every all before the cutoff", "@every 5m", utc(2026, 11, 30, 10, 2, 0), utc(2026, 11, 30, 10, 23, 0),
			utc(2026, 11, 30, 10, 23, 30), 0, time.Time{}, time.Time{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g := NewWithT(t)
			d := dueWithin(mustParse(t, tc.schedule, nil), tc.earliest, tc.cutoff, tc.now)
			g.Expect(d.Count).To(Equal(tc.count), "count")
			g.Expect(d.Latest).To(BeTemporally("==", tc.latest), "latest")
			g.Expect(d.Previous).To(BeTemporally("==", tc.previous), "previous")
		})
	}
}

// TestPlanScheduleLooksBackOnlyToTheDeadline uses the inputs of Kubernetes' own CronJob tests that siteops
// used to answer with "too many missed": after a week down, only the times within startingDeadlineSeconds
// are counted. Without a deadline the built-in warning stays.
func TestPlanScheduleLooksBackOnlyToTheDeadline(t *testing.T) {
	hourly, every := mustParse(t, "0 * * * ?", nil), mustParse(t, "@every 1h", nil)
	last, now := utc(2016, 5, 19, 9, 1, 0), utc(2016, 5, 26, 10, 0, 0)
	for _, tc := range []struct {
		name          string
		sched         cron.Schedule
		earliest, now time.Time
		deadline      *int64
		want          plan
	}{
		{"deadline 7200s: 08:00 (at the deadline) and 09:00 missed, 10:00 runs", hourly, last, now, ptr.To[int64](7200),
			plan{Run: now, Missed: 2, LastMissed: utc(2016, 5, 26, 9, 0, 0), Next: utc(2016, 5, 26, 11, 0, 0)}},
		{"deadline 10s: 10:00 runs, nothing missed", hourly, last, now, ptr.To[int64](10),
			plan{Run: now, Next: utc(2016, 5, 26, 11, 0, 0)}},
		{"@every 1h, deadline 10s: the latest is 71s late, missed", every, utc(2016, 5, 19, 10, 1, 0),
			utc(2016, 5, 26, 10, 2, 11), ptr.To[int64](10),
			plan{Missed: 1, LastMissed: utc(2016, 5, 26, 10, 1, 0), DeadlineExceeded: true, Next: utc(2016, 5, 26, 11, 1, 0)}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			NewWithT(t).Expect(planSchedule(tc.sched, tc.earliest, tc.now, tc.deadline)).To(Equal(tc.want))
		})
	}
	noDeadline := planSchedule(hourly, last, now, nil)
	NewWithT(t).Expect(noDeadline.TooMany).To(BeTrue(), "without a deadline a week of hourly times is too many")
	NewWithT(t).Expect(noDeadline.Missed).To(BeNumerically(">", batchv1.MaxMissedSchedules))
}

// TestPlanCatchUp checks the catch-up decisions on an hourly schedule whose last run was at 10:00.
func TestPlanCatchUp(t *testing.T) {
	hourly, every := mustParse(t, "0 * * * *", nil), mustParse(t, "@every 1h", nil)
	h := func(hour int) time.Time { return utc(2026, 11, 30, hour, 0, 0) }
	window := func(from, until time.Time) *catchUpWindow { return &catchUpWindow{From: from, Until: until} }
	sixHours := ptr.To[int64](6 * 3600)
	for _, tc := range []struct {
		name                   string
		sched                  cron.Schedule
		earliest, lastRun, now time.Time
		deadline               *int64
		maxRuns                int
		w                      *catchUpWindow
		want                   plan
	}{
		{name: "10 missed, maxRuns 3, deadline 6h: the three oldest inside the deadline", sched: hourly,
			earliest: h(10), lastRun: h(10), now: h(20).Add(30 * time.Second), deadline: sixHours, maxRuns: 3,
			want: plan{Run: h(15), Missed: 3, LastMissed: h(20), Next: h(21), CatchUp: window(h(15), h(17)), CatchUpRuns: 3}},
		{name: "10 missed, maxRuns 3, no deadline: the three oldest", sched: hourly,
			earliest: h(10), lastRun: h(10), now: h(20).Add(30 * time.Second), maxRuns: 3,
			want: plan{Run: h(11), Missed: 7, LastMissed: h(20), Next: h(21), CatchUp: window(h(11), h(13)), CatchUpRuns: 3}},
		{name: "maxRuns above the backlog: all of it, nothing missed", sched: hourly,
			earliest: h(10), lastRun: h(10), now: h(20).Add(30 * time.Second), maxRuns: 20,
			want: plan{Run: h(11), Next: h(21), CatchUp: window(h(11), h(20)), CatchUpRuns: 10}},
		{name: "one due: no catch-up, as Kubernetes", sched: hourly,
			earliest: h(10), lastRun: h(10), now: h(11).Add(30 * time.Second), deadline: sixHours, maxRuns: 3,
			want: plan{Run: h(11), Next: h(12)}},
		{name: "in progress: the next oldest", sched: hourly,
			earliest: h(20), lastRun: h(15), now: h(20).Add(31 * time.Second), deadline: sixHours, maxRuns: 3,
			w: window(h(15), h(17)), want: plan{Run: h(16), Next: h(21), CatchUp: window(h(16), h(17))}},
		{name: "in progress, Forbid held it up: 16:00 is past the deadline, 17:00 runs", sched: hourly,
			earliest: h(20), lastRun: h(15), now: h(22).Add(40 * time.Second), deadline: sixHours, maxRuns: 3,
			w: window(h(15), h(17)),
			want: plan{Run: h(17), Missed: 1, LastMissed: h(16), DeadlineExceeded: true, Next: h(23),
				CatchUp: window(h(17), h(17))}},
		{name: "in progress, every time past the deadline: the catch-up ends", sched: hourly,
			earliest: h(20), lastRun: h(15), now: h(20).Add(30 * time.Minute), deadline: ptr.To[int64](3600), maxRuns: 3,
			w:    window(h(15), h(17)),
			want: plan{Missed: 2, LastMissed: h(17), DeadlineExceeded: true, Next: h(21)}},
		{name: "in progress, already done (status patch of the end lost)", sched: hourly,
			earliest: h(20), lastRun: h(17), now: h(20).Add(40 * time.Second), deadline: sixHours, maxRuns: 3,
			w: window(h(15), h(17)), want: plan{Next: h(21)}},
		{name: "@every 1h stays on its chain", sched: every,
			earliest: h(10).Add(time.Minute), lastRun: h(10).Add(time.Minute), now: h(15).Add(2 * time.Minute), maxRuns: 2,
			want: plan{Run: h(11).Add(time.Minute), Missed: 3, LastMissed: h(15).Add(time.Minute), Next: h(16).Add(time.Minute),
				CatchUp: window(h(11).Add(time.Minute), h(12).Add(time.Minute)), CatchUpRuns: 2}},
		{name: "@every in progress", sched: every,
			earliest: h(15).Add(time.Minute), lastRun: h(11).Add(time.Minute), now: h(15).Add(3 * time.Minute), maxRuns: 2,
			w: window(h(11).Add(time.Minute), h(12).Add(time.Minute)),
			want: plan{Run: h(12).Add(time.Minute), Next: h(16).Add(time.Minute),
				CatchUp: window(h(12).Add(time.Minute), h(12).Add(time.Minute))}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := planCatchUp(tc.sched, tc.earliest, tc.lastRun, tc.now, tc.deadline, tc.maxRuns, tc.w)
			NewWithT(t).Expect(got).To(Equal(tc.want))
		})
	}
}
