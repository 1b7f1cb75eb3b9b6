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

func withPolicy(p batchv1.ConcurrencyPolicy, deadline *int64) func(*batchv1.CronJob) {
	return func(cj *batchv1.CronJob) {
		cj.Spec.ConcurrencyPolicy = p
		cj.Spec.StartingDeadlineSeconds = deadline
	}
}

// TestConcurrencyAllow runs a new Job while the previous one is still active.
func TestConcurrencyAllow(t *testing.T) {
	h := newHarness(t, t0)
	h.createScheduledAt("allow", t0, withPolicy(batchv1.AllowConcurrent, nil))
	for m := 1; m <= 2; m++ {
		h.clock.SetTime(t0.Add(time.Duration(m)*time.Minute + time.Second))
		h.mustReconcile("allow")
	}
	want := []string{JobName("allow", t0.Add(time.Minute)), JobName("allow", t0.Add(2*time.Minute))}
	h.g.Expect(jobNames(h.jobs())).To(Equal(want))
	h.g.Expect(h.get("allow").Status.Active).To(HaveLen(2))
}

// TestConcurrencyForbid skips the run while a Job is active and records why; the time stays due, so when the
// active Job finishes the run starts, late, if startingDeadlineSeconds allows it (as in Kubernetes), and is
// counted as missed when it does not.
func TestConcurrencyForbid(t *testing.T) {
	h := newHarness(t, t0)
	h.createScheduledAt("forbid", t0, withPolicy(batchv1.ForbidConcurrent, nil))
	h.createScheduledAt("forbid-deadline", t0, withPolicy(batchv1.ForbidConcurrent, ptr.To[int64](30)))
	first := func(name string) string { return JobName(name, t0.Add(time.Minute)) }
	second := func(name string) string { return JobName(name, t0.Add(2*time.Minute)) }

	h.clock.SetTime(t0.Add(time.Minute + time.Second))
	h.mustReconcile("forbid")
	h.mustReconcile("forbid-deadline")
	h.drainEvents()

	h.clock.SetTime(t0.Add(2*time.Minute + time.Second))
	h.mustReconcile("forbid")
	h.mustReconcile("forbid-deadline")
	h.g.Expect(jobNames(h.jobs())).To(Equal([]string{first("forbid"), first("forbid-deadline")}))
	h.g.Expect(h.drainEvents()).To(
		HaveEach(HavePrefix("Normal JobAlreadyActive Not starting job for 2035-01-01T10:02:00Z")))

	// The active Jobs finish 40s after the second scheduled time.
	h.finish(first("forbid"), true, t0.Add(2*time.Minute+35*time.Second))
	h.finish(first("forbid-deadline"), true, t0.Add(2*time.Minute+35*time.Second))
	h.clock.SetTime(t0.Add(2*time.Minute + 40*time.Second))
	h.mustReconcile("forbid")
	h.mustReconcile("forbid-deadline")
	h.g.Expect(jobNames(h.jobs())).To(Equal([]string{first("forbid"), second("forbid"), first("forbid-deadline")}))
	late := h.get("forbid-deadline")
	h.g.Expect(late.Status.LastMissedTime.Time).To(BeTemporally("==", t0.Add(2*time.Minute)))
	h.g.Expect(condition(late, batchv1.ConditionScheduleMissed).Reason).To(Equal(batchv1.ReasonDeadlineExceeded))
}

// TestConcurrencyReplace deletes the active Job (background propagation) before starting the new one.
func TestConcurrencyReplace(t *testing.T) {
	h := newHarness(t, t0)
	h.createScheduledAt("replace", t0, withPolicy(batchv1.ReplaceConcurrent, nil))
	h.clock.SetTime(t0.Add(time.Minute + time.Second))
	h.mustReconcile("replace")
	old := JobName("replace", t0.Add(time.Minute))
	h.g.Expect(jobNames(h.jobs())).To(Equal([]string{old}))
	h.drainEvents()

	h.clock.SetTime(t0.Add(2*time.Minute + time.Second))
	h.mustReconcile("replace")
	replacement := JobName("replace", t0.Add(2*time.Minute))
	h.g.Expect(jobNames(h.jobs())).To(Equal([]string{replacement}))
	active := h.get("replace").Status.Active
	h.g.Expect(active).To(HaveLen(1))
	h.g.Expect(active[0].Name).To(Equal(replacement))
	h.g.Expect(h.drainEvents()).To(Equal([]string{
		"Normal JobReplaced Deleted active job " + old + " to replace it with the run for 2035-01-01T10:02:00Z",
		"Normal SuccessfulCreate Created job " + replacement,
	}))
}
