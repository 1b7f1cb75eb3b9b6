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
	"time"

	"github.com/robfig/cron/v3"

	batchv1 "github.com/siteops/siteops/apis/batch/v1"
)

// countCap is how many due times are counted one by one; above it the count is estimated from the average
// interval of the first countCap, so a CronJob that was down for a year costs the same as one down for a day.
const countCap = batchv1.MaxMissedSchedules + 1

// due describes the scheduled times in (earliest, now]: how many there are and the most recent one.
type due struct {
	// Count is the number of scheduled times in (earliest, now]: exact up to countCap, estimated above it
	// (Estimated is then true).
	Count     int
	Estimated bool
	// Latest is the most recent scheduled time <= now; zero when Count is 0.
	Latest time.Time
	// Previous is the scheduled time before Latest, when it is also in the window (Count >= 2).
	Previous time.Time
}

// dueTimes finds the scheduled times of sched in (earliest, now] with a bounded number of sched.Next calls:
// at most countCap+1 to count, then a binary search (about log2 of the window in seconds) for the most recent
// one. It never assumes a fixed interval, so irregular schedules such as "30 6-16/4 * * 1-5" and DST
// transitions are exact. "@every" schedules are anchored at earliest, as robfig/cron and Kubernetes do.
func dueTimes(sched cron.Schedule, earliest, now time.Time) due {
	if every, ok := sched.(cron.ConstantDelaySchedule); ok {
		return dueEvery(every, earliest, now)
	}
	first := sched.Next(earliest)
	if first.IsZero() || first.After(now) {
		return due{}
	}
	d := due{Count: 1, Latest: first}
	for d.Count <= countCap {
		t := sched.Next(d.Latest)
		if t.IsZero() || t.After(now) {
			return d
		}
		d.Count, d.Previous, d.Latest = d.Count+1, d.Latest, t
	}
	// Too many to walk: search for the most recent one directly and estimate the count from the average
	// interval of those counted.
	counted, lastCounted := d.Count, d.Latest
	d.Latest = latestAtOrBefore(sched, lastCounted, now)
	if d.Latest.Equal(lastCounted) {
		return d
	}
	d.Previous = latestAtOrBefore(sched, lastCounted, d.Latest.Add(-time.Nanosecond))
	avg := lastCounted.Sub(first) / time.Duration(counted-1)
	d.Count = max(counted+1, 1+int(d.Latest.Sub(first)/avg))
	d.Estimated = true
	return d
}

// latestAtOrBefore returns the most recent scheduled time <= now, given a scheduled time from <= now.
// sched.Next is non-decreasing, so the x with sched.Next(x) <= now form an interval ending just before the
// answer; a binary search over it to one second (cron's resolution) takes about log2((now-from)/1s) steps.
func latestAtOrBefore(sched cron.Schedule, from, now time.Time) time.Time {
	if sched.Next(from).After(now) {
		return from
	}
	lo, hi := from, now // invariant: Next(lo) <= now < Next(hi)
	for hi.Sub(lo) > time.Second {
		mid := lo.Add(hi.Sub(lo) / 2)
		if sched.Next(mid).After(now) {
			hi = mid
		} else {
			lo = mid
		}
	}
	return sched.Next(lo)
}

// dueEvery is dueTimes for "@every d": the times are first, first+d, first+2d, … with first = Next(earliest).
func dueEvery(every cron.ConstantDelaySchedule, earliest, now time.Time) due {
	first := every.Next(earliest)
	if first.After(now) {
		return due{}
	}
	n := int(now.Sub(first)/every.Delay) + 1
	d := due{Count: n, Latest: first.Add(time.Duration(n-1) * every.Delay)}
	if n >= 2 {
		d.Previous = d.Latest.Add(-every.Delay)
	}
	return d
}

// nextScheduleTime returns the first scheduled time after now (zero if the schedule never fires again).
// "@every" schedules continue their chain from earliest.
func nextScheduleTime(sched cron.Schedule, earliest, now time.Time) time.Time {
	if every, ok := sched.(cron.ConstantDelaySchedule); ok {
		if d := dueEvery(every, earliest, now); d.Count > 0 {
			return d.Latest.Add(every.Delay)
		}
		return every.Next(earliest)
	}
	return sched.Next(now)
}

// tooLate reports whether a Job for scheduled may no longer start at now: startingDeadlineSeconds has passed.
// Starting exactly at the deadline is still in time.
func tooLate(scheduled, now time.Time, deadlineSeconds *int64) bool {
	if deadlineSeconds == nil {
		return false
	}
	return now.After(scheduled.Add(time.Duration(*deadlineSeconds) * time.Second))
}

// deadlineCutoff is the oldest scheduled time that may still start at now under startingDeadlineSeconds;
// zero without a deadline.
func deadlineCutoff(now time.Time, deadlineSeconds *int64) time.Time {
	if deadlineSeconds == nil {
		return time.Time{}
	}
	return now.Add(-time.Duration(*deadlineSeconds) * time.Second)
}

// dueWithin is dueTimes restricted to the times at or after cutoff (those startingDeadlineSeconds still
// allows; a zero cutoff restricts nothing). Counting only these keeps an outage longer than the deadline from
// being reported as too many missed times: Kubernetes also looks back only as far as the deadline. "@every"
// stays anchored at earliest.
func dueWithin(sched cron.Schedule, earliest, cutoff, now time.Time) due {
	if cutoff.IsZero() || !cutoff.After(earliest) {
		return dueTimes(sched, earliest, now)
	}
	every, ok := sched.(cron.ConstantDelaySchedule)
	if !ok {
		// Next(cutoff - 1ns) is the first scheduled time at or after cutoff (cron has whole seconds).
		return dueTimes(sched, cutoff.Add(-time.Nanosecond), now)
	}
	d := dueEvery(every, earliest, now)
	if first := every.Next(earliest); cutoff.After(first) {
		d.Count -= int((cutoff.Sub(first) + every.Delay - 1) / every.Delay) // the times before cutoff
	}
	switch {
	case d.Count <= 0:
		return due{}
	case d.Count == 1:
		d.Previous = time.Time{}
	}
	return d
}

// timesBetween lists the scheduled times t with from <= t <= until, oldest first, at most limit of them.
// "@every" times are from, from+delay, ...: from must be on the chain.
func timesBetween(sched cron.Schedule, from, until time.Time, limit int) []time.Time {
	var out []time.Time
	t := from
	if _, every := sched.(cron.ConstantDelaySchedule); !every {
		t = sched.Next(from.Add(-time.Nanosecond))
	}
	for ; len(out) < limit && !t.IsZero() && !t.After(until); t = sched.Next(t) {
		out = append(out, t)
	}
	return out
}

// plan is the scheduling decision of one reconcile, computed from the clock and the status alone. Times are
// scheduled (nominal) times; spec.spread shifts when they start, not what they are.
type plan struct {
	// Run is the scheduled time to start a Job for now; zero when none.
	Run time.Time
	// Missed is how many scheduled times this decision gives up: older due times superseded by Run (or newer
	// ones beyond a catch-up's maxRuns), plus those past startingDeadlineSeconds. Only times within the
	// deadline are counted, and the most recent due time when it is past it. Estimated when above
	// batchv1.MaxMissedSchedules.
	Missed int
	// LastMissed is the latest of those; zero when Missed is 0.
	LastMissed time.Time
	// DeadlineExceeded: a time was given up because it was past startingDeadlineSeconds.
	DeadlineExceeded bool
	// TooMany: more than batchv1.MaxMissedSchedules times were due at once within the deadline.
	TooMany bool
	// Next is the first scheduled time after now, when the controller should look again.
	Next time.Time
	// CatchUp is the catch-up (spec.catchUp) to keep after this decision; nil when none is in progress.
	CatchUp *catchUpWindow
	// CatchUpRuns is how many runs a catch-up that begins with this decision will start; 0 otherwise.
	CatchUpRuns int
}

// planSchedule decides what to do at now for a schedule whose times up to earliest are already decided (run
// or missed). Like Kubernetes it runs only the most recent due time, if startingDeadlineSeconds allows, and
// looks back only as far as that deadline.
func planSchedule(sched cron.Schedule, earliest, now time.Time, deadlineSeconds *int64) plan {
	p := plan{Next: nextScheduleTime(sched, earliest, now)}
	cutoff := deadlineCutoff(now, deadlineSeconds)
	d := dueWithin(sched, earliest, cutoff, now)
	if d.Count == 0 {
		if !cutoff.IsZero() {
			if latest := dueTimes(sched, earliest, now).Latest; !latest.IsZero() {
				p.Missed, p.LastMissed, p.DeadlineExceeded = 1, latest, true
			}
		}
		return p
	}
	p.TooMany = d.Count > batchv1.MaxMissedSchedules
	p.Run, p.Missed, p.LastMissed = d.Latest, d.Count-1, d.Previous
	return p
}
