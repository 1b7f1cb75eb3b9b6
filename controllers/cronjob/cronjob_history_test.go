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

// TestHistoryLimitsKeepExactly runs six scheduled Jobs (four succeed, two fail) with limits 2 and 1: after
// every reconcile no more than the limits are kept, and at the end exactly the two newest successful and the
// newest failed Job remain.
func TestHistoryLimitsKeepExactly(t *testing.T) {
	h := newHarness(t, t0)
	h.createScheduledAt("history", t0, func(cj *batchv1.CronJob) {
		cj.Spec.SuccessfulJobsHistoryLimit = ptr.To[int32](2)
		cj.Spec.FailedJobsHistoryLimit = ptr.To[int32](1)
		cj.Spec.StartingDeadlineSeconds = nil
	})
	name := func(m int) string { return JobName("history", t0.Add(time.Duration(m)*time.Minute)) }
	fails := map[int]bool{3: true, 6: true}
	for m := 1; m <= 6; m++ {
		h.clock.SetTime(t0.Add(time.Duration(m)*time.Minute + time.Second))
		h.mustReconcile("history")
		h.finish(name(m), !fails[m], t0.Add(time.Duration(m)*time.Minute+30*time.Second))
		var succeeded, failed int
		for _, j := range h.jobs() {
			if ct, ok := finishedCondition(&j); ok && ct == "Complete" {
				succeeded++
			} else if ok {
				failed++
			}
		}
		// Pruning runs before the new Job starts, so the Job just finished may be one over the limit.
		h.g.Expect(succeeded).To(BeNumerically("<=", 3), "after minute %d", m)
		h.g.Expect(failed).To(BeNumerically("<=", 2), "after minute %d", m)
	}
	h.clock.SetTime(t0.Add(6*time.Minute + 40*time.Second))
	h.mustReconcile("history")
	h.g.Expect(jobNames(h.jobs())).To(ConsistOf(name(4), name(5), name(6)))
	h.g.Expect(h.drainEvents()).To(ContainElements(
		"Normal SuccessfulDelete Deleted job "+name(1),
		"Normal SuccessfulDelete Deleted job "+name(2),
		"Normal SuccessfulDelete Deleted job "+name(3),
	))

	// Limit 0 keeps none.
	h.update("history", func(cj *batchv1.CronJob) {
		cj.Spec.SuccessfulJobsHistoryLimit = ptr.To[int32](0)
		cj.Spec.FailedJobsHistoryLimit = ptr.To[int32](0)
	})
	h.mustReconcile("history")
	h.g.Expect(h.jobs()).To(BeEmpty())
}
