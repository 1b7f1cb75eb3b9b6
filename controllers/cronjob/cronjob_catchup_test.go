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
	"github.com/prometheus/client_golang/prometheus/testutil"
	"k8s.io/utils/ptr"

	batchv1 "github.com/siteops/siteops/apis/batch/v1"
)

// hourlyCatchUp makes the CronJob hourly with startingDeadlineSeconds 6h and catchUp maxRuns 3.
func hourlyCatchUp(policy batchv1.ConcurrencyPolicy) func(*batchv1.CronJob) {
	return func(cj *batchv1.CronJob) {
		cj.Spec.Schedule = "0 * * * *"
		cj.Spec.StartingDeadlineSeconds = ptr.To[int64](6 * 3600)
		cj.Spec.CatchUp = &batchv1.CatchUpPolicy{MaxRuns: ptr.To[int32](3)}
		cj.Spec.ConcurrencyPolicy = policy
	}
}

// TestCatchUpOldestThreeInsideDeadline: the controller was away from 10:00 to 20:00:30, so 10 hourly runs
// were missed (11:00..20:00). With startingDeadlineSeconds 6h and catchUp maxRuns 3 it starts the three
// oldest still inside the deadline, 15:00, 16:00 and 17:00, one per reconcile, each Job told its scheduled
// time, and gives up 18:00..20:00 (11:00..14:00 are past the deadline and not counted).
func TestCatchUpOldestThreeInsideDeadline(t *testing.T) {
	h := newHarness(t, t0)
	h.createScheduledAt("catchup", t0, hourlyCatchUp(batchv1.AllowConcurrent))
	hour := func(n int) time.Time { return t0.Add(time.Duration(n-10) * time.Hour) }
	missed := testutil.ToFloat64(testMetrics.missedSchedules)
	h.clock.SetTime(hour(20).Add(30 * time.Second))

	res := h.mustReconcile("catchup")
	h.g.Expect(jobNames(h.jobs())).To(Equal([]string{JobName("catchup", hour(15))}))
	h.g.Expect(res.RequeueAfter).To(Equal(requeueMargin), "back at once for the next catch-up run")
	got := h.get("catchup")
	h.g.Expect(got.Status.CatchUp).NotTo(BeNil())
	h.g.Expect(got.Status.CatchUp.Until.Time).To(BeTemporally("==", hour(17)))
	h.g.Expect(got.Status.LastScheduleTime.Time).To(BeTemporally("==", hour(15)))
	h.g.Expect(got.Status.LastMissedTime.Time).To(BeTemporally("==", hour(20)))
	h.g.Expect(h.drainEvents()).To(Equal([]string{
		"Warning MissSchedule Missed 3 start times, the latest 2035-01-01T20:00:00Z; catching up the oldest 3, from " +
			"2035-01-01T15:00:00Z",
		"Normal CatchingUp Starting 3 missed runs one after the other, oldest first: 2035-01-01T15:00:00Z to " +
			"2035-01-01T17:00:00Z",
		"Normal SuccessfulCreate Created job " + JobName("catchup", hour(15)),
	}))
	h.g.Expect(testutil.ToFloat64(testMetrics.missedSchedules) - missed).To(Equal(3.0))

	h.mustReconcile("catchup")
	res = h.mustReconcile("catchup")
	want := []string{JobName("catchup", hour(15)), JobName("catchup", hour(16)), JobName("catchup", hour(17))}
	jobs := h.jobs()
	h.g.Expect(jobNames(jobs)).To(Equal(want))
	for i, job := range jobs {
		at := hour(15 + i).Format(time.RFC3339)
		h.g.Expect(job.Annotations[batchv1.ScheduledAtAnnotation]).To(Equal(at))
		h.g.Expect(scheduledTimeEnv(&job)).To(Equal(at))
	}
	got = h.get("catchup")
	h.g.Expect(got.Status.CatchUp).To(BeNil(), "the catch-up is over")
	h.g.Expect(condition(got, batchv1.ConditionScheduleMissed).Reason).To(Equal(batchv1.ReasonMissedSchedules),
		"catch-up runs are not on schedule")
	h.g.Expect(got.Status.LastScheduleTime.Time).To(BeTemporally("==", hour(17)))
	h.g.Expect(res.RequeueAfter).To(Equal(hour(21).Sub(hour(20).Add(30*time.Second)) + requeueMargin))
	h.g.Expect(h.drainEvents()).To(Equal([]string{
		"Normal SuccessfulCreate Created job " + want[1], "Normal SuccessfulCreate Created job " + want[2]}))

	// Nothing more until 21:00, which runs on its own.
	h.mustReconcile("catchup")
	h.g.Expect(h.jobs()).To(HaveLen(3))
	h.g.Expect(h.drainEvents()).To(BeEmpty())
	h.clock.SetTime(hour(21).Add(time.Second))
	h.mustReconcile("catchup")
	h.g.Expect(jobNames(h.jobs())).To(ContainElement(JobName("catchup", hour(21))))
	h.g.Expect(h.jobs()).To(HaveLen(4))
	h.g.Expect(condition(h.get("catchup"), batchv1.ConditionScheduleMissed).Reason).To(Equal(batchv1.ReasonOnSchedule))
	h.g.Expect(testutil.ToFloat64(testMetrics.missedSchedules) - missed).To(Equal(3.0))
}

// TestCatchUpDeadlineExpiresDuringCatchUp: with concurrencyPolicy Forbid the catch-up runs wait for each
// other. The 15:00 run lasts until 22:00:35, by when 16:00 is more than startingDeadlineSeconds (6h) late:
// it is given up (MissSchedule, DeadlineExceeded) and 17:00, still in time, runs and ends the catch-up.
func TestCatchUpDeadlineExpiresDuringCatchUp(t *testing.T) {
	h := newHarness(t, t0)
	h.createScheduledAt("slow", t0, hourlyCatchUp(batchv1.ForbidConcurrent))
	hour := func(n int) time.Time { return t0.Add(time.Duration(n-10) * time.Hour) }
	h.clock.SetTime(hour(20).Add(30 * time.Second))
	h.mustReconcile("slow")
	h.g.Expect(jobNames(h.jobs())).To(Equal([]string{JobName("slow", hour(15))}))

	// 21:00:40: the 15:00 Job is still running; Forbid holds 16:00 back.
	h.clock.SetTime(hour(21).Add(40 * time.Second))
	h.drainEvents()
	h.mustReconcile("slow")
	h.g.Expect(h.jobs()).To(HaveLen(1))
	h.g.Expect(h.drainEvents()).To(Equal([]string{
		"Normal JobAlreadyActive Not starting job for 2035-01-01T16:00:00Z because a previous job is still running"}))
	h.g.Expect(h.get("slow").Status.CatchUp).NotTo(BeNil())

	h.finish(JobName("slow", hour(15)), true, hour(22).Add(35*time.Second))
	h.clock.SetTime(hour(22).Add(40 * time.Second))
	h.mustReconcile("slow")
	h.g.Expect(jobNames(h.jobs())).To(Equal([]string{JobName("slow", hour(15)), JobName("slow", hour(17))}))
	got := h.get("slow")
	h.g.Expect(got.Status.CatchUp).To(BeNil())
	h.g.Expect(got.Status.LastScheduleTime.Time).To(BeTemporally("==", hour(17)))
	h.g.Expect(got.Status.LastMissedTime.Time).To(BeTemporally("==", hour(20)), "never moves back")
	missed := condition(got, batchv1.ConditionScheduleMissed)
	h.g.Expect(missed.Reason).To(Equal(batchv1.ReasonDeadlineExceeded))
	h.g.Expect(h.drainEvents()).To(ContainElements(
		"Warning MissSchedule Missed 1 start times, the latest 2035-01-01T16:00:00Z, by more than startingDeadlineSeconds "+
			"(21600s)",
		"Normal SuccessfulCreate Created job "+JobName("slow", hour(17))))
}

// TestCatchUpUnsetRunsOnlyTheLatest: without spec.catchUp the same outage runs only 20:00, as Kubernetes.
func TestCatchUpUnsetRunsOnlyTheLatest(t *testing.T) {
	h := newHarness(t, t0)
	h.createScheduledAt("builtin", t0, func(cj *batchv1.CronJob) {
		hourlyCatchUp(batchv1.AllowConcurrent)(cj)
		cj.Spec.CatchUp = nil
	})
	h.clock.SetTime(t0.Add(10*time.Hour + 30*time.Second))
	h.mustReconcile("builtin")
	h.mustReconcile("builtin")
	h.g.Expect(jobNames(h.jobs())).To(Equal([]string{JobName("builtin", t0.Add(10*time.Hour))}))
	h.g.Expect(h.get("builtin").Status.CatchUp).To(BeNil())
	h.g.Expect(h.jobs()[0].Spec.Template.Spec.Containers[0].Env).To(BeEmpty(),
		"the Job is the template, as in the tutorial")
}
