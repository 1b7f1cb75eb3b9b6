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
	"errors"
	"testing"
	"time"

	. "github.com/onsi/gomega"
	"github.com/prometheus/client_golang/prometheus/testutil"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	batchv1 "github.com/siteops/siteops/apis/batch/v1"
)

// TestTooManyMissedRunsMostRecent: 150 start times due at once (the controller was away for 150 minutes)
// runs only the most recent one, with a TooManyMissedTimes warning, the ScheduleMissed condition and
// lastMissedTime; the tutorial would have given up with an error instead.
func TestTooManyMissedRunsMostRecent(t *testing.T) {
	h := newHarness(t, t0)
	h.createScheduledAt("backlog", t0, func(cj *batchv1.CronJob) { cj.Spec.StartingDeadlineSeconds = nil })
	before := testutil.ToFloat64(testMetrics.missedSchedules)
	h.clock.SetTime(t0.Add(150*time.Minute + 20*time.Second))
	res := h.mustReconcile("backlog")

	latest := t0.Add(150 * time.Minute)
	h.g.Expect(jobNames(h.jobs())).To(Equal([]string{JobName("backlog", latest)}))
	h.g.Expect(res.RequeueAfter).To(Equal(40*time.Second + requeueMargin))
	got := h.get("backlog")
	h.g.Expect(got.Status.LastScheduleTime.Time).To(BeTemporally("==", latest))
	h.g.Expect(got.Status.LastMissedTime.Time).To(BeTemporally("==", latest.Add(-time.Minute)))
	missed := condition(got, batchv1.ConditionScheduleMissed)
	h.g.Expect(missed.Status).To(Equal(metav1.ConditionTrue))
	h.g.Expect(missed.Reason).To(Equal(batchv1.ReasonTooManyMissedTimes))
	h.g.Expect(missed.Message).To(ContainSubstring("Missed more than 100 (about 149) start times"))
	events := h.drainEvents()
	h.g.Expect(events).To(
		ContainElement(
			HavePrefix(
				"Warning TooManyMissedTimes Missed more than 100 (about 149) start times, the latest 2035-01-01T12:29:00Z; " +
					"started the most recent, 2035-01-01T12:30:00Z")))
	h.g.Expect(events).To(ContainElement("Normal SuccessfulCreate Created job " + JobName("backlog", latest)))
	h.g.Expect(testutil.ToFloat64(testMetrics.missedSchedules) - before).To(Equal(149.0))

	// The next minute is on schedule again.
	h.clock.SetTime(t0.Add(151*time.Minute + time.Second))
	h.mustReconcile("backlog")
	h.g.Expect(h.jobs()).To(HaveLen(2))
	h.g.Expect(condition(h.get("backlog"), batchv1.ConditionScheduleMissed).Reason).To(Equal(batchv1.ReasonOnSchedule))
}

// TestStartingDeadlineBoundary: with startingDeadlineSeconds 60 a run may start exactly 60s after its
// scheduled time, and not a second later; the late one is recorded as missed, with a MissSchedule warning.
func TestStartingDeadlineBoundary(t *testing.T) {
	h := newHarness(t, t0)
	every5 := func(cj *batchv1.CronJob) {
		cj.Spec.Schedule = "*/5 * * * *"
		cj.Spec.StartingDeadlineSeconds = ptr.To[int64](60)
	}
	h.createScheduledAt("edge", t0, every5)
	h.createScheduledAt("late", t0, every5)
	due := t0.Add(5 * time.Minute)

	h.clock.SetTime(due.Add(60 * time.Second))
	h.mustReconcile("edge")
	h.g.Expect(jobNames(h.jobs())).To(Equal([]string{JobName("edge", due)}))
	h.drainEvents()

	h.clock.SetTime(due.Add(61 * time.Second))
	h.mustReconcile("late")
	h.g.Expect(jobNames(h.jobs())).To(Equal([]string{JobName("edge", due)}))
	got := h.get("late")
	h.g.Expect(got.Status.LastScheduleTime.Time).To(BeTemporally("==", t0))
	h.g.Expect(got.Status.LastMissedTime.Time).To(BeTemporally("==", due))
	h.g.Expect(condition(got, batchv1.ConditionScheduleMissed).Reason).To(Equal(batchv1.ReasonDeadlineExceeded))
	h.g.Expect(h.drainEvents()).To(Equal([]string{
		"Warning MissSchedule Missed 1 start times, the latest 2035-01-01T10:05:00Z, by more than startingDeadlineSeconds " +
			"(60s)"}))

	// The missed time is decided: the next reconcile neither runs it nor reports it again.
	h.mustReconcile("late")
	h.g.Expect(h.drainEvents()).To(BeEmpty())
}

// TestInvalidScheduleStalls: with the webhook off, a schedule CEL cannot judge ("61 * * * *") or an unknown
// time zone reaches the controller, which stalls (Stalled=True, Ready=False, a warning, a terminal error: no
// retry) and recovers when the spec is fixed.
func TestInvalidScheduleStalls(t *testing.T) {
	for _, tc := range []struct {
		name, reason string
		mutate       func(*batchv1.CronJob)
	}{
		{"bad-minute", batchv1.ReasonInvalidSchedule, func(cj *batchv1.CronJob) { cj.Spec.Schedule = "61 * * * *" }},
		{"mars", batchv1.ReasonUnknownTimeZone, func(cj *batchv1.CronJob) { cj.Spec.TimeZone = ptr.To("Mars/Olympus") }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t, t0.Add(10*time.Minute))
			h.createScheduledAt(tc.name, t0, tc.mutate)
			res, err := h.reconcile(tc.name)
			h.g.Expect(errors.Is(err, reconcile.TerminalError(nil))).To(BeTrue(), "terminal error, got %v", err)
			h.g.Expect(res.RequeueAfter).To(BeZero())
			h.g.Expect(h.jobs()).To(BeEmpty())
			got := h.get(tc.name)
			stalled, ready := condition(got, batchv1.ConditionStalled), condition(got, batchv1.ConditionReady)
			h.g.Expect(stalled.Status).To(Equal(metav1.ConditionTrue))
			h.g.Expect(stalled.Reason).To(Equal(tc.reason))
			h.g.Expect(ready.Status).To(Equal(metav1.ConditionFalse))
			h.g.Expect(h.drainEvents()).To(ConsistOf(HavePrefix("Warning " + tc.reason + " spec.")))

			h.update(tc.name, func(cj *batchv1.CronJob) {
				cj.Spec.Schedule = "*/1 * * * *"
				cj.Spec.TimeZone = nil
				cj.Spec.StartingDeadlineSeconds = nil
			})
			h.mustReconcile(tc.name)
			got = h.get(tc.name)
			h.g.Expect(condition(got, batchv1.ConditionStalled).Status).To(Equal(metav1.ConditionFalse))
			h.g.Expect(condition(got, batchv1.ConditionReady).Status).To(Equal(metav1.ConditionTrue))
			h.g.Expect(h.jobs()).To(HaveLen(1))
		})
	}
}
