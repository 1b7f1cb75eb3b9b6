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
	"context"
	"errors"
	"fmt"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"

	batchv1 "github.com/siteops/siteops/apis/batch/v1"
	"github.com/siteops/siteops/internal/kit"
)

// timeFormat is how times appear in events and condition messages.
const timeFormat = time.RFC3339

// reconcileSchedule parses the schedule (a bad schedule or time zone stalls the CronJob: no retry until the
// spec changes), decides which due time to run and which are missed, records the missed ones in status,
// events and metrics, and asks to be woken at the next scheduled time.
func (r *Reconciler) reconcileSchedule(_ context.Context, s *scope) error {
	cj := s.cj
	if errs := batchv1.ValidateSchedule(cj.Spec.Schedule, cj.Spec.TimeZone, field.NewPath("spec")); len(errs) > 0 {
		reason, msg := batchv1.ReasonInvalidSchedule, errs.ToAggregate().Error()
		for _, e := range errs {
			if e.Field == "spec.timeZone" {
				reason = batchv1.ReasonUnknownTimeZone
			}
		}
		return kit.Stall(reason, errors.New(msg)) // the kit records the warning (Events.Terminal)
	}
	sched, err := batchv1.ParseSchedule(cj.Spec.Schedule, cj.Spec.TimeZone)
	if err != nil { // unreachable after ValidateSchedule; kept so a parser change cannot panic the controller
		return kit.Stall(batchv1.ReasonInvalidSchedule, fmt.Errorf("parsing the schedule: %w", err))
	}
	s.sched = sched
	// Plans are made in scheduled time: with spec.spread a run is due once scheduled time + offset has
	// come, so the plan sees the clock shifted back by the offset (startingDeadlineSeconds then counts from
	// the staggered time too). Job names and annotations keep the scheduled time.
	offset := StartOffset(cj)
	s.plan = planFor(cj, sched, s.now.Add(-offset))
	cj.Status.CatchUp = catchUpStatus(s.plan.CatchUp)
	r.recordMissed(s)
	r.recordCatchUp(s)
	dropLagCondition(s)
	if !s.plan.Next.IsZero() {
		s.plan.Next = s.plan.Next.Add(offset) // from here on: when the next run starts
		s.RequeueAfter(s.plan.Next.Sub(s.now) + requeueMargin)
	}
	return nil
}

// decidedUntil is the time up to which every scheduled time has been run or given up: the later of the last
// run and the last missed time, or the creation time when neither is set, as in Kubernetes (a status
// restored from before the creation time counts).
func decidedUntil(cj *batchv1.CronJob) time.Time {
	var t time.Time
	for _, mt := range []*metav1.Time{cj.Status.LastScheduleTime, cj.Status.LastMissedTime} {
		if mt != nil && mt.After(t) {
			t = mt.Time
		}
	}
	if t.IsZero() {
		return cj.CreationTimestamp.Time
	}
	return t
}

// recordMissed puts the plan's missed times into status.lastMissedTime, the ScheduleMissed condition, a
// MissSchedule or TooManyMissedTimes warning and the missed-schedules counter. ScheduleMissed turns False
// when a run starts with nothing missed (reconcileRun).
func (r *Reconciler) recordMissed(s *scope) {
	p, cj := s.plan, s.cj
	if p.Missed == 0 {
		if !hasCondition(cj, batchv1.ConditionScheduleMissed) {
			r.setOnSchedule(s)
		}
		return
	}
	r.observer().MissedSchedules(p.Missed)
	if last := cj.Status.LastMissedTime; last == nil || p.LastMissed.After(last.Time) {
		cj.Status.LastMissedTime = &metav1.Time{Time: p.LastMissed}
	}
	count := fmt.Sprintf("%d", p.Missed)
	if p.TooMany {
		count = fmt.Sprintf("more than %d (about %d)", batchv1.MaxMissedSchedules, p.Missed)
	}
	reason, msg := batchv1.ReasonMissedSchedules,
		fmt.Sprintf("Missed %s start times, the latest %s; started the most recent, %s",
			count, p.LastMissed.UTC().Format(timeFormat), p.Run.UTC().Format(timeFormat))
	if p.CatchUpRuns > 0 {
		msg = fmt.Sprintf("Missed %s start times, the latest %s; catching up the oldest %d, from %s",
			count, p.LastMissed.UTC().Format(timeFormat), p.CatchUpRuns, p.Run.UTC().Format(timeFormat))
	}
	if p.DeadlineExceeded {
		reason = batchv1.ReasonDeadlineExceeded
		msg = fmt.Sprintf("Missed %s start times, the latest %s, by more than startingDeadlineSeconds (%ds)",
			count, p.LastMissed.UTC().Format(timeFormat), *cj.Spec.StartingDeadlineSeconds)
	}
	if p.TooMany {
		reason = batchv1.ReasonTooManyMissedTimes
		r.events().Warning(cj, batchv1.ReasonTooManyMissedTimes,
			"%s. Too many missed start times: set or lower .spec.startingDeadlineSeconds or check clock skew", msg)
	} else {
		r.events().Warning(cj, batchv1.ReasonMissSchedule, "%s", msg)
	}
	r.conditions().Set(cj, batchv1.ConditionScheduleMissed, *kit.True(reason, msg))
}

// setOnSchedule turns ScheduleMissed False: the last decision missed nothing.
func (r *Reconciler) setOnSchedule(s *scope) {
	r.conditions().Set(s.cj, batchv1.ConditionScheduleMissed, *kit.False(batchv1.ReasonOnSchedule,
		"No scheduled time was missed"))
}

// timeZoneLocation returns the CronJob's time zone, UTC when unset or unknown (an unknown zone stalls the
// CronJob before any Job is built).
func timeZoneLocation(cj *batchv1.CronJob) *time.Location {
	if cj.Spec.TimeZone != nil {
		if loc, err := time.LoadLocation(*cj.Spec.TimeZone); err == nil {
			return loc
		}
	}
	return time.UTC
}
