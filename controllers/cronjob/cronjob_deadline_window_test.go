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
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	batchv1 "github.com/siteops/siteops/apis/batch/v1"
)

// TestMissedCountedOnlyWithinDeadline runs Kubernetes' own test inputs: schedule "0 * * * ?", last run
// 2016-05-19 09:01, now 2016-05-26 10:00. With startingDeadlineSeconds 7200 or 10 the 10:00 Job starts and
// only the times within the deadline count: no TooManyMissedTimes warning or condition, and the missed
// counter grows by those (2: 08:00, exactly at the deadline, and 09:00; 0 with 10s), not by ~168.
func TestMissedCountedOnlyWithinDeadline(t *testing.T) {
	last, now := time.Date(2016, 5, 19, 9, 1, 0, 0, time.UTC), time.Date(2016, 5, 26, 10, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		name     string
		deadline int64
		missed   float64
		reason   string
		events   []string
	}{
		{"deadline-7200", 7200, 2, batchv1.ReasonMissedSchedules, []string{
			"Warning MissSchedule Missed 2 start times, the latest 2016-05-26T09:00:00Z; started the most recent, " +
				"2016-05-26T10:00:00Z",
			"Normal SuccessfulCreate Created job deadline-7200-24404280"}},
		{"deadline-10", 10, 0, batchv1.ReasonOnSchedule, []string{
			"Normal SuccessfulCreate Created job deadline-10-24404280"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t, now)
			h.createScheduledAt(tc.name, last, func(cj *batchv1.CronJob) {
				cj.Spec.Schedule = "0 * * * ?"
				cj.Spec.StartingDeadlineSeconds = ptr.To(tc.deadline)
			})
			before := testutil.ToFloat64(testMetrics.missedSchedules)
			h.mustReconcile(tc.name)
			h.g.Expect(jobNames(h.jobs())).To(Equal([]string{JobName(tc.name, now)}))
			h.g.Expect(JobName(tc.name, now)).To(HaveSuffix("-24404280"), "2016-05-26T10:00Z in Unix minutes")
			h.g.Expect(h.drainEvents()).To(Equal(tc.events))
			missed := condition(h.get(tc.name), batchv1.ConditionScheduleMissed)
			h.g.Expect(missed.Reason).To(Equal(tc.reason))
			h.g.Expect(missed.Reason).NotTo(Equal(batchv1.ReasonTooManyMissedTimes))
			h.g.Expect(testutil.ToFloat64(testMetrics.missedSchedules) - before).To(Equal(tc.missed))
		})
	}
}

// TestEveryHourWeekLateIsMissSchedule: "@every 1h", last run 10:01, now a week later at 10:02:11,
// startingDeadlineSeconds 10: the latest time (10:01) is 71s late, so nothing runs, and siteops reports it
// as one MissSchedule (DeadlineExceeded), not TooManyMissedTimes.
func TestEveryHourWeekLateIsMissSchedule(t *testing.T) {
	now := time.Date(2016, 5, 26, 10, 2, 11, 0, time.UTC)
	h := newHarness(t, now)
	h.createScheduledAt("every", time.Date(2016, 5, 19, 10, 1, 0, 0, time.UTC), func(cj *batchv1.CronJob) {
		cj.Spec.Schedule = "@every 1h"
		cj.Spec.StartingDeadlineSeconds = ptr.To[int64](10)
	})
	before := testutil.ToFloat64(testMetrics.missedSchedules)
	res := h.mustReconcile("every")
	h.g.Expect(h.jobs()).To(BeEmpty())
	h.g.Expect(h.drainEvents()).To(Equal([]string{
		"Warning MissSchedule Missed 1 start times, the latest 2016-05-26T10:01:00Z, by more than startingDeadlineSeconds " +
			"(10s)"}))
	got := h.get("every")
	missed := condition(got, batchv1.ConditionScheduleMissed)
	h.g.Expect(missed.Status).To(Equal(metav1.ConditionTrue))
	h.g.Expect(missed.Reason).To(Equal(batchv1.ReasonDeadlineExceeded))
	h.g.Expect(got.Status.LastMissedTime.Time).To(BeTemporally("==", time.Date(2016, 5, 26, 10, 1, 0, 0, time.UTC)))
	h.g.Expect(testutil.ToFloat64(testMetrics.missedSchedules) - before).To(Equal(1.0))
	h.g.Expect(res.RequeueAfter).To(Equal(time.Date(2016, 5, 26, 11, 1, 0, 0, time.UTC).Sub(now) + requeueMargin))
}
