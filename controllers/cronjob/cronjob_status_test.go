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
	"k8s.io/utils/ptr"

	batchv1 "github.com/siteops/siteops/apis/batch/v1"
)

// TestStatusFollowsJobConditions: status.active lists a running Job and drops it when its Complete or Failed
// condition turns True; lastSuccessfulTime is the completion time of the last successful Job and does not
// move for a failed one; each finish is reported once as SawCompletedJob.
func TestStatusFollowsJobConditions(t *testing.T) {
	h := newHarness(t, t0)
	h.createScheduledAt("status", t0, func(cj *batchv1.CronJob) { cj.Spec.StartingDeadlineSeconds = nil })
	first, second := JobName("status", t0.Add(time.Minute)), JobName("status", t0.Add(2*time.Minute))

	h.clock.SetTime(t0.Add(time.Minute + time.Second))
	h.mustReconcile("status")
	got := h.get("status")
	h.g.Expect(got.Status.Active).To(HaveLen(1))
	h.g.Expect(got.Status.Active[0].Name).To(Equal(first))
	h.g.Expect(got.Status.Active[0].Kind).To(Equal("Job"))
	h.g.Expect(got.Status.LastScheduleTime.Time).To(BeTemporally("==", t0.Add(time.Minute)))
	h.g.Expect(got.Status.LastSuccessfulTime).To(BeNil())
	h.drainEvents()

	h.finish(first, true, t0.Add(time.Minute+20*time.Second))
	h.clock.SetTime(t0.Add(time.Minute + 30*time.Second))
	h.mustReconcile("status")
	got = h.get("status")
	h.g.Expect(got.Status.Active).To(BeEmpty())
	h.g.Expect(got.Status.LastSuccessfulTime.Time).To(BeTemporally("==", t0.Add(time.Minute+20*time.Second)))
	h.g.Expect(h.drainEvents()).To(Equal([]string{"Normal SawCompletedJob Saw completed job: " + first +
		", condition: Complete"}))

	h.clock.SetTime(t0.Add(2*time.Minute + time.Second))
	h.mustReconcile("status")
	h.g.Expect(h.get("status").Status.Active).To(HaveLen(1))
	h.finish(second, false, t0.Add(2*time.Minute+10*time.Second))
	h.clock.SetTime(t0.Add(2*time.Minute + 20*time.Second))
	h.drainEvents()
	h.mustReconcile("status")
	got = h.get("status")
	h.g.Expect(got.Status.Active).To(BeEmpty())
	h.g.Expect(got.Status.LastScheduleTime.Time).To(BeTemporally("==", t0.Add(2*time.Minute)))
	h.g.Expect(got.Status.LastSuccessfulTime.Time).To(BeTemporally("==", t0.Add(time.Minute+20*time.Second)))
	h.g.Expect(got.Status.LastFailureTime.Time).To(BeTemporally("==", t0.Add(2*time.Minute+10*time.Second)))
	h.g.Expect(h.drainEvents()).To(Equal([]string{"Normal SawCompletedJob Saw completed job: " + second +
		", condition: Failed",
		"Warning JobFailed Job " + second + " failed: BackoffLimitExceeded: Job has reached the specified backoff limit"}))

	// Nothing changed: another reconcile reports nothing again.
	h.mustReconcile("status")
	h.g.Expect(h.drainEvents()).To(BeEmpty())
}

// TestTimeZoneSchedule: "0 9 * * *" in Asia/Tokyo runs at 00:00 UTC, and the Job's scheduled-time
// annotation is written in the CronJob's zone.
func TestTimeZoneSchedule(t *testing.T) {
	h := newHarness(t, t0)
	h.createScheduledAt("tokyo", t0, func(cj *batchv1.CronJob) {
		cj.Spec.Schedule = "0 9 * * *"
		cj.Spec.TimeZone = ptr.To("Asia/Tokyo")
	})
	nineInTokyo := time.Date(2035, 1, 2, 0, 0, 0, 0, time.UTC)
	h.clock.SetTime(nineInTokyo.Add(-time.Second))
	h.mustReconcile("tokyo")
	h.g.Expect(h.jobs()).To(BeEmpty())
	h.clock.SetTime(nineInTokyo.Add(5 * time.Second))
	h.mustReconcile("tokyo")
	jobs := h.jobs()
	h.g.Expect(jobNames(jobs)).To(Equal([]string{JobName("tokyo", nineInTokyo)}))
	h.g.Expect(jobs[0].Annotations).To(HaveKeyWithValue(batchv1.ScheduledTimestampAnnotation, "2035-01-02T09:00:00+09:00"))
}
