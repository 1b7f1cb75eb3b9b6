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

// TestLagObjectiveConditionSetAndCleared: with lagObjectiveSeconds 5 and spread 30s, a run created 20s
// after its staggered start turns ScheduleLagging True with a Warning; the next run, 2s after its start,
// turns it False; removing the objective removes the condition.
func TestLagObjectiveConditionSetAndCleared(t *testing.T) {
	h := newHarness(t, t0)
	cj := h.createScheduledAt("slo", t0, func(cj *batchv1.CronJob) {
		cj.Spec.Spread = &metav1.Duration{Duration: 30 * time.Second}
		cj.Spec.LagObjectiveSeconds = ptr.To[int64](5)
	})
	off := staggerOffset(cj.UID, 30*time.Second)
	at := func(n int) time.Time { return t0.Add(time.Duration(n) * time.Minute) }

	h.clock.SetTime(at(1).Add(off + 20*time.Second))
	h.mustReconcile("slo")
	lagging := condition(h.get("slo"), batchv1.ConditionScheduleLagging)
	h.g.Expect(lagging).NotTo(BeNil())
	h.g.Expect(lagging.Status).To(Equal(metav1.ConditionTrue))
	h.g.Expect(lagging.Reason).To(Equal(batchv1.ReasonLagObjectiveExceeded))
	msg := "The run for 2035-01-01T10:01:00Z was created 20s after its start time, more than lagObjectiveSeconds (5s)"
	h.g.Expect(lagging.Message).To(Equal(msg))
	h.g.Expect(h.drainEvents()).To(ContainElement("Warning LagObjectiveExceeded " + msg))

	h.clock.SetTime(at(2).Add(off + 2*time.Second))
	h.mustReconcile("slo")
	h.g.Expect(h.jobs()).To(HaveLen(2))
	lagging = condition(h.get("slo"), batchv1.ConditionScheduleLagging)
	h.g.Expect(lagging.Status).To(Equal(metav1.ConditionFalse))
	h.g.Expect(lagging.Reason).To(Equal(batchv1.ReasonWithinLagObjective))
	h.g.Expect(h.drainEvents()).NotTo(ContainElement(HavePrefix("Warning LagObjectiveExceeded")))

	h.update("slo", func(cj *batchv1.CronJob) { cj.Spec.LagObjectiveSeconds = nil })
	h.mustReconcile("slo")
	h.g.Expect(condition(h.get("slo"), batchv1.ConditionScheduleLagging)).To(BeNil())
}
