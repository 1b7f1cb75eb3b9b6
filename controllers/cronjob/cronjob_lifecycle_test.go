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
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	batchv1 "github.com/siteops/siteops/apis/batch/v1"
)

// TestCreateStartsJobAtScheduledTime: a new CronJob (the book's sample, counted from its creation time)
// starts nothing before its first scheduled minute, then exactly one Job at it, stamped and owned, with status
// and an event, and asks to be woken at the next minute.
func TestCreateStartsJobAtScheduledTime(t *testing.T) {
	h := newHarness(t, time.Now())
	cj := h.create("hello", nil)
	first := cj.CreationTimestamp.Time.Truncate(time.Minute).Add(time.Minute)

	h.clock.SetTime(first.Add(-time.Second))
	res := h.mustReconcile("hello")
	h.g.Expect(h.jobs()).To(BeEmpty())
	h.g.Expect(res.RequeueAfter).To(Equal(time.Second + requeueMargin))

	h.clock.SetTime(first.Add(2 * time.Second))
	res = h.mustReconcile("hello")
	jobs := h.jobs()
	h.g.Expect(jobNames(jobs)).To(Equal([]string{JobName("hello", first)}))
	job := jobs[0]
	h.g.Expect(job.Annotations).To(HaveKeyWithValue(batchv1.ScheduledTimestampAnnotation,
		first.UTC().Format(time.RFC3339)))
	h.g.Expect(job.Annotations).To(HaveKeyWithValue(batchv1.ScheduledAtAnnotation, first.UTC().Format(time.RFC3339)))
	h.g.Expect(metav1.IsControlledBy(&job, h.get("hello"))).To(BeTrue())
	h.g.Expect(job.Spec.Template.Spec.Containers[0].Args).To(
		ContainElement("date; echo Hello from the Kubernetes cluster"))
	h.g.Expect(res.RequeueAfter).To(Equal(58*time.Second + requeueMargin))

	got := h.get("hello")
	h.g.Expect(got.Status.Active).To(HaveLen(1))
	h.g.Expect(got.Status.Active[0].Name).To(Equal(job.Name))
	h.g.Expect(got.Status.LastScheduleTime.Time).To(BeTemporally("==", first))
	h.g.Expect(got.Status.ObservedGeneration).To(Equal(got.Generation))
	h.g.Expect(condition(got, batchv1.ConditionReady).Status).To(Equal(metav1.ConditionTrue))
	h.g.Expect(condition(got, batchv1.ConditionScheduleMissed).Reason).To(Equal(batchv1.ReasonOnSchedule))
	h.g.Expect(condition(got, batchv1.ConditionStalled).Status).To(Equal(metav1.ConditionFalse))
	h.g.Expect(condition(got, batchv1.ConditionReconciling).Status).To(Equal(metav1.ConditionFalse))
	h.g.Expect(h.drainEvents()).To(Equal([]string{"Normal SuccessfulCreate Created job " + job.Name}))

	// Reconciling again in the same minute starts nothing more.
	h.mustReconcile("hello")
	h.g.Expect(h.jobs()).To(HaveLen(1))
	h.g.Expect(h.drainEvents()).To(BeEmpty())
}

// TestSuspendAndResume: a suspended CronJob starts nothing and is not requeued; on resume it runs the most
// recent time it slept through and reports the others as missed, as Kubernetes does without a deadline.
func TestSuspendAndResume(t *testing.T) {
	h := newHarness(t, t0)
	h.createScheduledAt("sleepy", t0, func(cj *batchv1.CronJob) {
		cj.Spec.Suspend = ptr.To(true)
		cj.Spec.StartingDeadlineSeconds = nil
	})
	h.clock.SetTime(t0.Add(5*time.Minute + 10*time.Second))
	res := h.mustReconcile("sleepy")
	h.g.Expect(h.jobs()).To(BeEmpty())
	h.g.Expect(res.RequeueAfter).To(BeZero())
	ready := condition(h.get("sleepy"), batchv1.ConditionReady)
	h.g.Expect(ready.Status).To(Equal(metav1.ConditionTrue))
	h.g.Expect(ready.Reason).To(Equal(batchv1.ReasonSuspended))

	h.update("sleepy", func(cj *batchv1.CronJob) { cj.Spec.Suspend = ptr.To(false) })
	h.mustReconcile("sleepy")
	h.g.Expect(jobNames(h.jobs())).To(Equal([]string{JobName("sleepy", t0.Add(5*time.Minute))}))
	got := h.get("sleepy")
	h.g.Expect(got.Status.LastScheduleTime.Time).To(BeTemporally("==", t0.Add(5*time.Minute)))
	h.g.Expect(got.Status.LastMissedTime.Time).To(BeTemporally("==", t0.Add(4*time.Minute)))
	missed := condition(got, batchv1.ConditionScheduleMissed)
	h.g.Expect(missed.Status).To(Equal(metav1.ConditionTrue))
	h.g.Expect(missed.Reason).To(Equal(batchv1.ReasonMissedSchedules))
	h.g.Expect(missed.Message).To(HavePrefix("Missed 4 start times"))
	h.g.Expect(condition(got, batchv1.ConditionReady).Reason).To(Equal(batchv1.ReasonScheduling))

	// Suspended again: the next minutes pass without a Job.
	h.update("sleepy", func(cj *batchv1.CronJob) { cj.Spec.Suspend = ptr.To(true) })
	h.clock.SetTime(t0.Add(9 * time.Minute))
	h.mustReconcile("sleepy")
	h.g.Expect(h.jobs()).To(HaveLen(1))
}
