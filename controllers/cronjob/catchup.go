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
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	batchv1 "github.com/siteops/siteops/apis/batch/v1"
)

// catchUpWindow is a catch-up in progress (status.catchUp): the scheduled times from From through Until are
// started one per reconcile, oldest first, each if startingDeadlineSeconds still allows at that moment.
type catchUpWindow struct {
	From, Until time.Time
}

// planCatchUp is planSchedule for a CronJob with spec.catchUp. With a catch-up in progress (w) it starts the
// oldest of its times after lastRun, giving up those startingDeadlineSeconds no longer allows; once none is
// left the catch-up ends and the schedule is planned as usual. Without one, when two or more times are due
// within the deadline, it begins a catch-up of the oldest maxRuns of them and gives up the newer rest.
func planCatchUp(sched cron.Schedule, earliest, lastRun, now time.Time, deadlineSeconds *int64, maxRuns int,
	w *catchUpWindow) plan {
	cutoff := deadlineCutoff(now, deadlineSeconds)
	var expired []time.Time
	if w != nil {
		for _, t := range timesBetween(sched, w.From, w.Until, int(batchv1.MaxCatchUpRuns)) {
			switch {
			case !t.After(lastRun) || t.After(now):
			case t.Before(cutoff):
				expired = append(expired, t)
			default:
				// From moves to the run, so the times given up here are not counted again.
				p := plan{Next: nextScheduleTime(sched, earliest, now), Run: t,
					CatchUp: &catchUpWindow{From: t, Until: w.Until}}
				return withExpired(p, expired)
			}
		}
	}
	// No catch-up in progress, or it is over.
	d := dueWithin(sched, earliest, cutoff, now)
	if d.Count < 2 || maxRuns < 1 {
		return withExpired(planSchedule(sched, earliest, now, deadlineSeconds), expired)
	}
	runs := timesBetween(sched, firstDue(sched, earliest, cutoff), d.Latest, maxRuns)
	p := plan{Next: nextScheduleTime(sched, earliest, now), TooMany: d.Count > batchv1.MaxMissedSchedules,
		Run: runs[0], CatchUp: &catchUpWindow{From: runs[0], Until: runs[len(runs)-1]}, CatchUpRuns: len(runs)}
	if d.Count > len(runs) {
		p.Missed, p.LastMissed = d.Count-len(runs), d.Latest
	}
	return withExpired(p, expired)
}

// firstDue is the first scheduled time after earliest that is at or after cutoff (zero: no cutoff).
func firstDue(sched cron.Schedule, earliest, cutoff time.Time) time.Time {
	first := sched.Next(earliest)
	if every, ok := sched.(cron.ConstantDelaySchedule); ok {
		if cutoff.After(first) {
			first = first.Add(every.Delay * ((cutoff.Sub(first) + every.Delay - 1) / every.Delay))
		}
		return first
	}
	if cutoff.After(first) {
		return sched.Next(cutoff.Add(-time.Nanosecond))
	}
	return first
}

// withExpired adds the catch-up times given up at the deadline to a plan's missed times.
func withExpired(p plan, expired []time.Time) plan {
	if len(expired) == 0 {
		return p
	}
	p.Missed += len(expired)
	p.DeadlineExceeded = true
	if last := expired[len(expired)-1]; last.After(p.LastMissed) {
		p.LastMissed = last
	}
	return p
}

// catchUpFrom reads status.catchUp.
func catchUpFrom(cj *batchv1.CronJob) *catchUpWindow {
	if c := cj.Status.CatchUp; c != nil {
		return &catchUpWindow{From: c.From.Time, Until: c.Until.Time}
	}
	return nil
}

// catchUpStatus is the status.catchUp of a window.
func catchUpStatus(w *catchUpWindow) *batchv1.CatchUpStatus {
	if w == nil {
		return nil
	}
	return &batchv1.CatchUpStatus{From: metav1.NewTime(w.From), Until: metav1.NewTime(w.Until)}
}

// planFor plans the CronJob's schedule at now (in scheduled time): with spec.catchUp through planCatchUp,
// otherwise as Kubernetes does.
func planFor(cj *batchv1.CronJob, sched cron.Schedule, now time.Time) plan {
	earliest, deadline := decidedUntil(cj), cj.Spec.StartingDeadlineSeconds
	if cj.Spec.CatchUp == nil {
		return planSchedule(sched, earliest, now, deadline)
	}
	maxRuns := batchv1.DefaultCatchUpMaxRuns
	if cj.Spec.CatchUp.MaxRuns != nil {
		maxRuns = min(*cj.Spec.CatchUp.MaxRuns, batchv1.MaxCatchUpRuns)
	}
	var lastRun time.Time
	if cj.Status.LastScheduleTime != nil {
		lastRun = cj.Status.LastScheduleTime.Time
	}
	return planCatchUp(sched, earliest, lastRun, now, deadline, int(maxRuns), catchUpFrom(cj))
}

// recordCatchUp records a catch-up that begins with this reconcile as a CatchingUp event.
func (r *Reconciler) recordCatchUp(s *scope) {
	if p := s.plan; p.CatchUpRuns > 0 {
		r.events().Normal(s.cj, batchv1.ReasonCatchingUp,
			"Starting %d missed runs one after the other, oldest first: %s to %s", p.CatchUpRuns,
			p.CatchUp.From.UTC().Format(timeFormat), p.CatchUp.Until.UTC().Format(timeFormat))
	}
}

// catchUpStarted updates status.catchUp after the run for at started: the catch-up ends with its last time;
// before that the controller comes back at once for the next one.
func catchUpStarted(s *scope, at time.Time) {
	c := s.cj.Status.CatchUp
	switch {
	case c == nil:
	case !at.Before(c.Until.Time):
		s.cj.Status.CatchUp = nil
	default:
		s.RequeueAfter(requeueMargin)
	}
}
