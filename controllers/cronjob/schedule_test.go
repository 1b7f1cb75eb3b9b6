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

func mustParse(t testing.TB, schedule string, tz *string) cron.Schedule {
	t.Helper()
	s, err := batchv1.ParseSchedule(schedule, tz)
	if err != nil {
		t.Fatalf("parsing %q: %v", schedule, err)
	}
	return s
}

func utc(y int, mo time.Month, d, h, mi, s int) time.Time {
	return time.Date(y, mo, d, h, mi, s, 0, time.UTC)
}

func inZone(t testing.TB, zone string, y int, mo time.Month, d, h, mi int) time.Time {
	t.Helper()
	loc, err := time.LoadLocation(zone)
	if err != nil {
		t.Fatal(err)
	}
	return time.Date(y, mo, d, h, mi, 0, 0, loc)
}

// TestDueTimes checks the count, the most recent and the previous due time against times worked out by hand.
// 2026-11-30 is a Monday.
func TestDueTimes(t *testing.T) {
	ny := "America/New_York"
	tests := []struct {
		name               string
		schedule           string
		tz                 *string
		earliest, now      time.Time
		count              int
		latest, previous   time.Time
		estimated, tooMany bool
	}{
		{name: "nothing due yet", schedule: "*/1 * * * *",
			earliest: utc(2026, 11, 30, 10, 0, 0), now: utc(2026, 11, 30, 10, 0, 59)},
		{name: "exactly at the scheduled time", schedule: "*/1 * * * *",
			earliest: utc(2026, 11, 30, 10, 0, 0), now: utc(2026, 11, 30, 10, 1, 0),
			count: 1, latest: utc(2026, 11, 30, 10, 1, 0)},
		{name: "five due, most recent wins", schedule: "*/1 * * * *",
			earliest: utc(2026, 11, 30, 10, 0, 0), now: utc(2026, 11, 30, 10, 5, 30),
			count: 5, latest: utc(2026, 11, 30, 10, 5, 0), previous: utc(2026, 11, 30, 10, 4, 0)},
		{name: "clock behind lastScheduleTime", schedule: "*/1 * * * *",
			earliest: utc(2026, 11, 30, 10, 0, 0), now: utc(2026, 11, 30, 9, 0, 0)},
		{name: "@hourly descriptor", schedule: "@hourly",
			earliest: utc(2026, 11, 30, 10, 15, 0), now: utc(2026, 11, 30, 13, 59, 0),
			count: 3, latest: utc(2026, 11, 30, 13, 0, 0), previous: utc(2026, 11, 30, 12, 0, 0)},
		{name: "@every 5m is anchored at earliest", schedule: "@every 5m",
			earliest: utc(2026, 11, 30, 10, 2, 0), now: utc(2026, 11, 30, 10, 18, 0),
			count: 3, latest: utc(2026, 11, 30, 10, 17, 0), previous: utc(2026, 11, 30, 10, 12, 0)},
		{name: "irregular 30 6-16/4 * * 1-5 over a weekend", schedule: "30 6-16/4 * * 1-5",
			// Fri 14:30 is before earliest; Sat and Sun have none; Mon 06:30 and 10:30 are due.
			earliest: utc(2026, 11, 27, 15, 0, 0), now: utc(2026, 11, 30, 11, 0, 0),
			count: 2, latest: utc(2026, 11, 30, 10, 30, 0), previous: utc(2026, 11, 30, 6, 30, 0)},
		{name: "irregular 0 9,17 * * 1-5: unequal gaps", schedule: "0 9,17 * * 1-5",
			// Thu 17:00, Fri 09:00, Fri 17:00, Mon 09:00. A fixed interval taken from the first two (16h)
			// would put the latest at Mon 01:00, which is not a scheduled time.
			earliest: utc(2026, 11, 26, 12, 0, 0), now: utc(2026, 11, 30, 9, 30, 0),
			count: 4, latest: utc(2026, 11, 30, 9, 0, 0), previous: utc(2026, 11, 27, 17, 0, 0)},
		{name: "more than 100 missed, regular", schedule: "*/1 * * * *",
			earliest: utc(2026, 11, 30, 10, 0, 0), now: utc(2026, 11, 30, 12, 30, 20),
			count: 150, latest: utc(2026, 11, 30, 12, 30, 0), previous: utc(2026, 11, 30, 12, 29, 0),
			estimated: true, tooMany: true},
		{name: "exactly 101 due is too many", schedule: "*/1 * * * *",
			earliest: utc(2026, 11, 30, 10, 0, 0), now: utc(2026, 11, 30, 11, 41, 0),
			count: 101, latest: utc(2026, 11, 30, 11, 41, 0), previous: utc(2026, 11, 30, 11, 40, 0), tooMany: true},
		{name: "exactly 100 due is not too many", schedule: "*/1 * * * *",
			earliest: utc(2026, 11, 30, 10, 0, 0), now: utc(2026, 11, 30, 11, 40, 0),
			count: 100, latest: utc(2026, 11, 30, 11, 40, 0), previous: utc(2026, 11, 30, 11, 39, 0)},
		{name: "a year down, irregular weekday schedule", schedule: "30 6-16/4 * * 1-5",
			// From Mon 2025-12-01 00:00 to Mon 2026-11-30 08:00: the last run is Mon 06:30, the one before is
			// Fri 2026-11-27 14:30.
			earliest: utc(2025, 12, 1, 0, 0, 0), now: utc(2026, 11, 30, 8, 0, 0),
			latest: utc(2026, 11, 30, 6, 30, 0), previous: utc(2026, 11, 27, 14, 30, 0),
			count: -1, estimated: true, tooMany: true},
		{name: "time zone: 09:00 in Tokyo is 00:00 UTC", schedule: "0 9 * * *", tz: ptr.To("Asia/Tokyo"),
			earliest: utc(2026, 11, 29, 12, 0, 0), now: utc(2026, 11, 30, 1, 0, 0),
			count: 1, latest: utc(2026, 11, 30, 0, 0, 0)},
		{name: "DST spring forward: 02:30 does not exist on 2026-03-08 and is skipped (as Kubernetes)",
			schedule: "30 2 * * *", tz: &ny,
			earliest: inZone(t, ny, 2026, 3, 7, 12, 0), now: inZone(t, ny, 2026, 3, 8, 12, 0)},
		{name: "DST spring forward: hourly keeps firing every real hour", schedule: "0 * * * *", tz: &ny,
			// 01:00 EST (06:00Z), then 03:00 EDT (07:00Z) and 04:00 EDT (08:00Z).
			earliest: utc(2026, 3, 8, 5, 30, 0), now: utc(2026, 3, 8, 8, 0, 0),
			count: 3, latest: utc(2026, 3, 8, 8, 0, 0), previous: utc(2026, 3, 8, 7, 0, 0)},
		{name: "DST fall back: 01:30 happens twice on 2026-11-01 and both fire (as Kubernetes)",
			schedule: "30 1 * * *", tz: &ny,
			earliest: inZone(t, ny, 2026, 10, 31, 12, 0), now: utc(2026, 11, 1, 8, 0, 0),
			count: 2, latest: utc(2026, 11, 1, 6, 30, 0), previous: utc(2026, 11, 1, 5, 30, 0)},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			g := NewWithT(t)
			d := dueTimes(mustParse(t, tc.schedule, tc.tz), tc.earliest, tc.now)
			if tc.count >= 0 {
				g.Expect(d.Count).To(Equal(tc.count), "count")
			} else {
				g.Expect(d.Count).To(BeNumerically(">", countCap), "count")
			}
			g.Expect(d.Latest).To(BeTemporally("==", tc.latest), "latest")
			g.Expect(d.Previous).To(BeTemporally("==", tc.previous), "previous")
			g.Expect(d.Estimated).To(Equal(tc.estimated), "estimated")
			g.Expect(d.Count > batchv1.MaxMissedSchedules).To(Equal(tc.tooMany), "too many")
		})
	}
}

// TestDueTimesAgreesWithWalking compares the bounded search with a plain walk over sched.Next on long windows
// of irregular and zoned schedules: the binary search for the most recent time must land on the walk's answer.
func TestDueTimesAgreesWithWalking(t *testing.T) {
	ny := "America/New_York"
	for _, tc := range []struct {
		schedule string
		tz       *string
	}{
		{"30 6-16/4 * * 1-5", nil}, {"0 9,17 * * 1-5", nil}, {"*/7 * * * *", nil}, {"30 1 * * *", &ny},
		{"30 2 * * *", &ny}, {"0 0 29 2 *", nil}, {"15 3 1,15 * *", &ny}, {"@weekly", nil},
	} {
		t.Run(tc.schedule, func(t *testing.T) {
			g := NewWithT(t)
			sched := mustParse(t, tc.schedule, tc.tz)
			earliest := utc(2026, 1, 1, 0, 0, 0)
			for _, now := range []time.Time{
				utc(2026, 3, 8, 7, 31, 0), utc(2026, 11, 1, 6, 30, 0), utc(2026, 11, 30, 9, 0, 1), utc(2028, 3, 1, 0, 0, 0),
			} {
				var walked, before time.Time
				n := 0
				for x := sched.Next(earliest); !x.IsZero() && !x.After(now); x = sched.Next(x) {
					n, before, walked = n+1, walked, x
				}
				d := dueTimes(sched, earliest, now)
				g.Expect(d.Latest).To(BeTemporally("==", walked), "latest at %s", now)
				g.Expect(d.Previous).To(BeTemporally("==", before), "previous at %s", now)
				if n <= countCap {
					g.Expect(d.Count).To(Equal(n), "count at %s", now)
				} else {
					g.Expect(d.Estimated).To(BeTrue())
					g.Expect(d.Count).To(BeNumerically(">", countCap))
				}
			}
		})
	}
}

// TestNextScheduleTime checks where the controller requeues to.
func TestNextScheduleTime(t *testing.T) {
	tests := []struct {
		name          string
		schedule      string
		earliest, now time.Time
		want          time.Time
	}{
		{"next minute", "*/1 * * * *", utc(2026, 11, 30, 10, 0, 0), utc(2026, 11, 30, 10, 0, 30),
			utc(2026, 11, 30, 10, 1, 0)},
		{"exactly on a scheduled time looks past it", "*/5 * * * *", utc(2026, 11, 30, 10, 0, 0),
			utc(2026, 11, 30, 10, 5, 0), utc(2026, 11, 30, 10, 10, 0)},
		{"irregular: Friday afternoon to Monday", "30 6-16/4 * * 1-5", utc(2026, 11, 27, 0, 0, 0),
			utc(2026, 11, 27, 15, 0, 0), utc(2026, 11, 30, 6, 30, 0)},
		{"@every before its first run", "@every 5m", utc(2026, 11, 30, 10, 2, 0), utc(2026, 11, 30, 10, 3, 0),
			utc(2026, 11, 30, 10, 7, 0)},
		{"@every continues its chain", "@every 5m", utc(2026, 11, 30, 10, 2, 0), utc(2026, 11, 30, 10, 18, 0),
			utc(2026, 11, 30, 10, 22, 0)},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := nextScheduleTime(mustParse(t, tc.schedule, nil), tc.earliest, tc.now)
			NewWithT(t).Expect(got).To(BeTemporally("==", tc.want))
		})
	}
}

// TestPlanSchedule checks the decision: run the most recent due time unless startingDeadlineSeconds has passed
// (starting exactly at the deadline is in time), and count what is given up within the deadline.
func TestPlanSchedule(t *testing.T) {
	earliest := utc(2026, 11, 30, 10, 0, 0)
	tests := []struct {
		name     string
		schedule string
		now      time.Time
		deadline *int64
		want     plan
	}{
		{name: "nothing due", schedule: "*/5 * * * *", now: utc(2026, 11, 30, 10, 4, 0),
			want: plan{Next: utc(2026, 11, 30, 10, 5, 0)}},
		{name: "on time", schedule: "*/5 * * * *", now: utc(2026, 11, 30, 10, 5, 0),
			want: plan{Run: utc(2026, 11, 30, 10, 5, 0), Next: utc(2026, 11, 30, 10, 10, 0)}},
		{name: "at the deadline boundary: still runs", schedule: "*/5 * * * *", deadline: ptr.To[int64](60),
			now:  utc(2026, 11, 30, 10, 6, 0),
			want: plan{Run: utc(2026, 11, 30, 10, 5, 0), Next: utc(2026, 11, 30, 10, 10, 0)}},
		{name: "one second past the deadline: missed", schedule: "*/5 * * * *", deadline: ptr.To[int64](60),
			now: utc(2026, 11, 30, 10, 6, 1),
			want: plan{Missed: 1, LastMissed: utc(2026, 11, 30, 10, 5, 0), DeadlineExceeded: true,
				Next: utc(2026, 11, 30, 10, 10, 0)}},
		{name: "deadline 0: only the exact second", schedule: "*/5 * * * *", deadline: ptr.To[int64](0),
			now: utc(2026, 11, 30, 10, 5, 1),
			want: plan{Missed: 1, LastMissed: utc(2026, 11, 30, 10, 5, 0), DeadlineExceeded: true,
				Next: utc(2026, 11, 30, 10, 10, 0)}},
		{name: "three due: run the latest, two missed", schedule: "*/5 * * * *", deadline: ptr.To[int64](900),
			now: utc(2026, 11, 30, 10, 15, 30),
			want: plan{Run: utc(2026, 11, 30, 10, 15, 0), Missed: 2, LastMissed: utc(2026, 11, 30, 10, 10, 0),
				Next: utc(2026, 11, 30, 10, 20, 0)}},
		{name: "three due, deadline 60: the two older are past it and not counted (as Kubernetes)",
			schedule: "*/5 * * * *", deadline: ptr.To[int64](60), now: utc(2026, 11, 30, 10, 15, 30),
			want: plan{Run: utc(2026, 11, 30, 10, 15, 0), Next: utc(2026, 11, 30, 10, 20, 0)}},
		{name: "all past the deadline: the most recent is reported missed", schedule: "*/5 * * * *",
			deadline: ptr.To[int64](60), now: utc(2026, 11, 30, 10, 18, 0),
			want: plan{Missed: 1, LastMissed: utc(2026, 11, 30, 10, 15, 0), DeadlineExceeded: true,
				Next: utc(2026, 11, 30, 10, 20, 0)}},
		{name: "over 100 due: run the latest, warn", schedule: "*/1 * * * *",
			now: utc(2026, 11, 30, 12, 0, 0),
			want: plan{Run: utc(2026, 11, 30, 12, 0, 0), Missed: 119, LastMissed: utc(2026, 11, 30, 11, 59, 0),
				TooMany: true, Next: utc(2026, 11, 30, 12, 1, 0)}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := planSchedule(mustParse(t, tc.schedule, nil), earliest, tc.now, tc.deadline)
			NewWithT(t).Expect(got).To(Equal(tc.want))
		})
	}
}

// TestTooLate pins the startingDeadlineSeconds boundary on its own.
func TestTooLate(t *testing.T) {
	g := NewWithT(t)
	at := utc(2026, 11, 30, 10, 0, 0)
	g.Expect(tooLate(at, at.Add(time.Hour), nil)).To(BeFalse(), "no deadline: never too late")
	g.Expect(tooLate(at, at.Add(60*time.Second), ptr.To[int64](60))).To(BeFalse(), "at the deadline")
	g.Expect(tooLate(at, at.Add(60*time.Second+time.Millisecond), ptr.To[int64](60))).To(BeTrue(), "after it")
}

// BenchmarkMostRecentScheduleTime measures dueTimes, the schedule maths run by every reconcile.
func BenchmarkMostRecentScheduleTime(b *testing.B) {
	now := utc(2026, 11, 30, 12, 0, 30)
	for _, bc := range []struct {
		name, schedule string
		earliest       time.Time
	}{
		{"on-time every minute", "*/1 * * * *", now.Add(-time.Minute)},
		{"irregular, a day behind", "30 6-16/4 * * 1-5", now.Add(-24 * time.Hour)},
		{"every minute, a year behind", "*/1 * * * *", now.AddDate(-1, 0, 0)},
		{"irregular, a year behind", "30 6-16/4 * * 1-5", now.AddDate(-1, 0, 0)},
	} {
		sched := mustParse(b, bc.schedule, nil)
		b.Run(bc.name, func(b *testing.B) {
			for b.Loop() {
				_ = dueTimes(sched, bc.earliest, now)
			}
		})
	}
}
