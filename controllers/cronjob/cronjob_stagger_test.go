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
	kbatchv1 "k8s.io/api/batch/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	batchv1 "github.com/siteops/siteops/apis/batch/v1"
)

// createStaggered creates CronJobs named base-0, base-1, ... (changed by mutate, spread set) until one gets
// an offset of at least minOffset from the UID the apiserver gave it, and returns it with that offset. The
// UID is random, so this is how a test picks an offset without reaching into the controller.
func (h *harness) createStaggered(base string, last time.Time, spread, minOffset time.Duration,
	mutate func(*batchv1.CronJob)) (*batchv1.CronJob, time.Duration) {
	h.t.Helper()
	for i := range 20 {
		cj := h.createScheduledAt(fmt.Sprintf("%s-%d", base, i), last, func(cj *batchv1.CronJob) {
			cj.Spec.Spread = &metav1.Duration{Duration: spread}
			if mutate != nil {
				mutate(cj)
			}
		})
		if off := staggerOffset(cj.UID, spread); off >= minOffset {
			return cj, off
		}
		h.g.Expect(direct.Delete(h.ctx, cj)).To(Succeed())
	}
	h.t.Fatalf("no UID in 20 gave an offset of at least %s in a spread of %s", minOffset, spread)
	return nil, 0
}

// scheduledTimeEnv returns the SITEOPS_SCHEDULED_TIME of the Job's first container.
func scheduledTimeEnv(job *kbatchv1.Job) string {
	for _, e := range job.Spec.Template.Spec.Containers[0].Env {
		if e.Name == batchv1.ScheduledTimeEnv {
			return e.Value
		}
	}
	return ""
}

// TestStaggerOffsetStableAcrossRestartAndLeaderChange: with spread 30s, every run of the CronJob starts at
// its scheduled minute plus the same offset, whichever controller decides: the first Reconciler (not a
// millisecond early), a restarted one, and the controllers of two managers that take over one after the
// other (a leader change), each with its own cache. Job names and annotations keep the scheduled minute.
func TestStaggerOffsetStableAcrossRestartAndLeaderChange(t *testing.T) {
	h := newHarness(t, t0)
	cj, off := h.createStaggered("stable", t0, 30*time.Second, time.Second, nil)
	name := cj.Name
	at := func(n int) time.Time { return t0.Add(time.Duration(n) * time.Minute) }
	t.Logf("offset of UID %s in a 30s spread: %s", cj.UID, off)

	// Run 1: due at the scheduled minute for Kubernetes, but not before the offset here.
	h.clock.SetTime(at(1))
	res := h.mustReconcile(name)
	h.g.Expect(h.jobs()).To(BeEmpty())
	h.g.Expect(res.RequeueAfter).To(Equal(off + requeueMargin))
	h.g.Expect(condition(h.get(name), batchv1.ConditionReady).Message).
		To(Equal("Next run at " + at(1).Add(off).Format(time.RFC3339)))

	restarted := h.newReconciler()
	h.clock.SetTime(at(1).Add(off - time.Millisecond))
	res, err := h.reconcileWith(restarted, name)
	h.g.Expect(err).NotTo(HaveOccurred())
	h.g.Expect(h.jobs()).To(BeEmpty())
	h.g.Expect(res.RequeueAfter).To(Equal(time.Millisecond + requeueMargin))

	h.clock.SetTime(at(1).Add(off))
	res, err = h.reconcileWith(restarted, name)
	h.g.Expect(err).NotTo(HaveOccurred())
	jobs := h.jobs()
	h.g.Expect(jobNames(jobs)).To(Equal([]string{JobName(name, at(1))}))
	h.g.Expect(jobs[0].Annotations[batchv1.ScheduledAtAnnotation]).To(Equal(at(1).Format(time.RFC3339)))
	h.g.Expect(jobs[0].Annotations[batchv1.ScheduledTimestampAnnotation]).To(Equal(at(1).Format(time.RFC3339)))
	h.g.Expect(scheduledTimeEnv(&jobs[0])).To(Equal(at(1).Format(time.RFC3339)))
	h.g.Expect(res.RequeueAfter).To(Equal(time.Minute + requeueMargin))
	h.g.Expect(h.get(name).Status.LastScheduleTime.Time).To(BeTemporally("==", at(1)))

	// Leader change: another manager's controller, with its own cache, takes over at run 2's start.
	h.clock.SetTime(at(2).Add(off))
	stop := h.startManager()
	h.g.Eventually(func(g Gomega) {
		g.Expect(jobNames(h.jobs())).To(Equal([]string{JobName(name, at(1)), JobName(name, at(2))}))
		g.Expect(condition(h.get(name), batchv1.ConditionReady).Message).
			To(Equal("Next run at " + at(3).Add(off).Format(time.RFC3339)))
	}).WithTimeout(20 * time.Second).WithPolling(50 * time.Millisecond).Should(Succeed())
	stop()

	// And another one, a millisecond before run 3's start: it starts nothing (a spec change makes sure it
	// has reconciled).
	h.clock.SetTime(at(3).Add(off - time.Millisecond))
	stop = h.startManager()
	h.update(name, func(cj *batchv1.CronJob) { cj.Spec.SuccessfulJobsHistoryLimit = ptr.To[int32](5) })
	generation := h.get(name).Generation
	h.g.Eventually(func() int64 { return h.get(name).Status.ObservedGeneration }).
		WithTimeout(20 * time.Second).WithPolling(50 * time.Millisecond).Should(Equal(generation))
	stop()
	h.g.Expect(h.jobs()).To(HaveLen(2))
	h.g.Expect(condition(h.get(name), batchv1.ConditionReady).Message).
		To(Equal("Next run at " + at(3).Add(off).Format(time.RFC3339)))
}

// TestSpreadAcrossHourBoundary: "59 * * * *" with spread 1h and an offset over a minute starts the 10:59
// run in the next hour, at 10:59 + offset, still named and annotated 10:59. startingDeadlineSeconds (10)
// counts from the staggered time: the run starts exactly 10s after it, and the 11:59 run, 11s after its
// staggered time, is missed.
func TestSpreadAcrossHourBoundary(t *testing.T) {
	h := newHarness(t, t0)
	cj, off := h.createStaggered("hourly", t0, time.Hour, time.Minute+time.Second, func(cj *batchv1.CronJob) {
		cj.Spec.Schedule = "59 * * * *"
		cj.Spec.StartingDeadlineSeconds = ptr.To[int64](10)
	})
	name := cj.Name
	nominal := t0.Add(59 * time.Minute) // 10:59
	t.Logf("offset %s: the 10:59 run starts at %s", off, nominal.Add(off).Format(time.RFC3339Nano))

	h.clock.SetTime(t0.Add(time.Hour)) // 11:00, past the hour but before the staggered start
	res := h.mustReconcile(name)
	h.g.Expect(h.jobs()).To(BeEmpty())
	h.g.Expect(res.RequeueAfter).To(Equal(nominal.Add(off).Sub(t0.Add(time.Hour)) + requeueMargin))

	h.clock.SetTime(nominal.Add(off + 10*time.Second))
	h.mustReconcile(name)
	jobs := h.jobs()
	h.g.Expect(jobNames(jobs)).To(Equal([]string{JobName(name, nominal)}))
	h.g.Expect(jobs[0].Annotations[batchv1.ScheduledAtAnnotation]).To(Equal("2035-01-01T10:59:00Z"))
	h.g.Expect(scheduledTimeEnv(&jobs[0])).To(Equal("2035-01-01T10:59:00Z"))
	got := h.get(name)
	h.g.Expect(got.Status.LastScheduleTime.Time).To(BeTemporally("==", nominal))
	h.g.Expect(condition(got, batchv1.ConditionScheduleMissed).Reason).To(Equal(batchv1.ReasonOnSchedule))
	h.drainEvents()

	h.clock.SetTime(nominal.Add(time.Hour + off + 11*time.Second))
	h.mustReconcile(name)
	h.g.Expect(h.jobs()).To(HaveLen(1))
	got = h.get(name)
	h.g.Expect(got.Status.LastMissedTime.Time).To(BeTemporally("==", nominal.Add(time.Hour)))
	h.g.Expect(h.drainEvents()).To(Equal([]string{
		"Warning MissSchedule Missed 1 start times, the latest 2035-01-01T11:59:00Z, by more than startingDeadlineSeconds " +
			"(10s)"}))
}

// TestSpreadStaggersCronJobsSharingASchedule: five CronJobs on "*/1 * * * *" with spread 30s each start
// their 10:01 run at their own offset; the fake clock visits every start time in order and each reconcile
// starts exactly the CronJobs whose staggered time has come. The table it logs is docs/cronjob.md's example.
func TestSpreadStaggersCronJobsSharingASchedule(t *testing.T) {
	h := newHarness(t, t0)
	nominal := t0.Add(time.Minute)
	starts := map[string]time.Time{}
	var names []string
	for i := range 5 {
		cj := h.createScheduledAt(fmt.Sprintf("report-%d", i), t0, func(cj *batchv1.CronJob) {
			cj.Spec.Spread = &metav1.Duration{Duration: 30 * time.Second}
		})
		names = append(names, cj.Name)
		starts[cj.Name] = nominal.Add(staggerOffset(cj.UID, 30*time.Second))
	}
	created := map[string]time.Time{} // Job name -> fake-clock time it was created
	for _, visit := range sortedTimes(starts) {
		h.clock.SetTime(visit)
		for _, name := range names {
			h.mustReconcile(name)
		}
		for _, job := range h.jobs() {
			if _, seen := created[job.Name]; !seen {
				created[job.Name] = visit
			}
		}
	}
	var table strings.Builder
	fmt.Fprintf(&table, "%-24s %-22s %s\n", "NAME", "SCHEDULED-AT", "STARTED")
	for _, name := range names {
		job := JobName(name, nominal)
		h.g.Expect(created).To(HaveKeyWithValue(job, starts[name]), "Job %s starts at its staggered time", job)
		fmt.Fprintf(&table, "%-24s %-22s %s\n", job, nominal.Format(time.RFC3339), starts[name].Format("15:04:05.000"))
	}
	h.g.Expect(created).To(HaveLen(5))
	t.Logf("Jobs of five CronJobs on */1 with spread 30s:\n%s", table.String())
}

// sortedTimes returns the distinct values of m, oldest first.
func sortedTimes(m map[string]time.Time) []time.Time {
	var out []time.Time
	for _, t := range m {
		out = append(out, t)
	}
	for i := range out {
		for j := i + 1; j < len(out); j++ {
			if out[j].Before(out[i]) {
				out[i], out[j] = out[j], out[i]
			}
		}
	}
	return out
}
