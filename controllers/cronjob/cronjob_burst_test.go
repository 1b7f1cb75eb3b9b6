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
	"fmt"
	"strings"
	"testing"
	"time"

	. "github.com/onsi/gomega"

	batchv1 "github.com/siteops/siteops/apis/batch/v1"
)

// TestBurstCreatesJobsBeforeStatuses: ten `*/1` CronJobs fall due at the same instant, each woken by its own
// scheduled-time requeue as in production, with one worker so the order of the writes is the controller's
// alone. Every Job is created before any status is written or SuccessfulCreate recorded (a reconcile that
// started a run while others wait leaves both to the reconcile its Job's create event brings), and each
// run's status is still written exactly once and its event recorded once: ten creates, then ten status
// writes and ten SuccessfulCreate events, and every CronJob shows its run.
func TestBurstCreatesJobsBeforeStatuses(t *testing.T) {
	const n = 10
	due := t0.Add(time.Minute)
	h := newHarness(t, due.Add(-time.Millisecond))
	for i := range n {
		h.createScheduledAt(fmt.Sprintf("burst-%d", i), t0, nil)
	}
	w := &writeCounter{}
	m, stop, settle := h.startCountingManager(w, 1)
	defer stop()
	h.g.Eventually(func(g Gomega) {
		for i := range n {
			g.Expect(condition(h.get(fmt.Sprintf("burst-%d", i)), batchv1.ConditionReady)).NotTo(BeNil())
		}
	}).WithTimeout(20 * time.Second).WithPolling(20 * time.Millisecond).Should(Succeed())

	// One millisecond before the minute, every CronJob asks to be woken at it (plus requeueMargin). Hold
	// the worker until all ten wake-ups are taken (one, by the worker) or ready in the queue, then let the
	// minute come.
	release := m.hold()
	defer release()
	h.g.Eventually(func() int { return m.queued() + int(m.paused.Load()) }).
		WithTimeout(20 * time.Second).WithPolling(10 * time.Millisecond).Should(Equal(n))
	w.reset()
	h.drainEvents()
	h.clock.SetTime(due.Add(time.Second))
	release()

	h.g.Eventually(func(g Gomega) {
		for i := range n {
			name := fmt.Sprintf("burst-%d", i)
			cj := h.get(name)
			g.Expect(cj.Status.Active).To(HaveLen(1))
			g.Expect(cj.Status.Active[0].Name).To(Equal(JobName(name, due)))
			g.Expect(cj.Status.LastScheduleTime.Time).To(BeTemporally("==", due))
		}
	}).WithTimeout(20 * time.Second).WithPolling(20 * time.Millisecond).Should(Succeed())
	for i := range n {
		settle(fmt.Sprintf("burst-%d", i))
	}

	// The sequence holds the events too ("event Reason CronJob").
	seq := w.sequence()
	h.g.Expect(seq).To(HaveLen(3*n), "writes and events: %v", seq)
	created, written, announced := map[string]bool{}, map[string]bool{}, map[string]bool{}
	for _, write := range seq[:n] {
		h.g.Expect(write).To(HavePrefix("create Job burst-"), "the first ten: %v", seq)
		created[write] = true
	}
	for _, write := range seq[n:] {
		switch {
		case strings.HasPrefix(write, "write status CronJob burst-"):
			written[write] = true
		case strings.HasPrefix(write, "event "+batchv1.ReasonSuccessfulCreate+" burst-"):
			announced[write] = true
		default:
			h.g.Expect(write).To(BeEmpty(), "after the creates, only status writes and SuccessfulCreate: %v", seq)
		}
	}
	h.g.Expect(created).To(HaveLen(n), "one Job per CronJob: %v", seq)
	h.g.Expect(written).To(HaveLen(n), "one status write per CronJob: %v", seq)
	h.g.Expect(announced).To(HaveLen(n), "one SuccessfulCreate per CronJob: %v", seq)
}
