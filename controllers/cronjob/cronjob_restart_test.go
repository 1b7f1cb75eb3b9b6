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
	"context"
	"testing"
	"time"

	. "github.com/onsi/gomega"
	kbatchv1 "k8s.io/api/batch/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	batchv1 "github.com/siteops/siteops/apis/batch/v1"
)

// TestNoDuplicateAfterRestart: a second Reconciler (a restarted controller) at the same scheduled time does
// not start a second Job, even when the first one's status patch was lost; it takes lastScheduleTime back from
// the Job. An orphan Job that already has the next run's name is adopted, not duplicated.
func TestNoDuplicateAfterRestart(t *testing.T) {
	h := newHarness(t, t0)
	h.createScheduledAt("restart", t0, nil)
	h.clock.SetTime(t0.Add(time.Minute + 5*time.Second))
	h.mustReconcile("restart")
	first := JobName("restart", t0.Add(time.Minute))
	h.g.Expect(jobNames(h.jobs())).To(Equal([]string{first}))

	// The crash lost the status patch.
	cj := h.get("restart")
	cj.Status.LastScheduleTime = &metav1.Time{Time: t0}
	cj.Status.Active = nil
	h.g.Expect(direct.Status().Update(h.ctx, cj)).To(Succeed())
	h.drainEvents()

	restarted := h.newReconciler()
	_, err := h.reconcileWith(restarted, "restart")
	h.g.Expect(err).NotTo(HaveOccurred())
	h.g.Expect(jobNames(h.jobs())).To(Equal([]string{first}))
	got := h.get("restart")
	h.g.Expect(got.Status.LastScheduleTime.Time).To(BeTemporally("==", t0.Add(time.Minute)))
	h.g.Expect(got.Status.Active).To(HaveLen(1))
	h.g.Expect(h.drainEvents()).To(BeEmpty())

	// An orphan Job with the deterministic name of the next run exists: it is adopted as that run.
	orphanName := JobName("restart", t0.Add(2*time.Minute))
	orphan := &kbatchv1.Job{ObjectMeta: metav1.ObjectMeta{Namespace: h.ns, Name: orphanName},
		Spec: *cj.Spec.JobTemplate.Spec.DeepCopy()}
	h.g.Expect(direct.Create(h.ctx, orphan)).To(Succeed())
	h.clock.SetTime(t0.Add(2*time.Minute + 5*time.Second))
	_, err = h.reconcileWith(restarted, "restart")
	h.g.Expect(err).NotTo(HaveOccurred())
	jobs := h.jobs()
	h.g.Expect(jobNames(jobs)).To(Equal([]string{first, orphanName}))
	h.g.Expect(metav1.IsControlledBy(&jobs[1], h.get("restart"))).To(BeTrue())
	h.g.Expect(h.drainEvents()).To(Equal([]string{"Normal AdoptedJob Adopted existing job " + orphanName}))
	h.g.Expect(h.get("restart").Status.LastScheduleTime.Time).To(BeTemporally("==", t0.Add(2*time.Minute)))
}

// TestNoDuplicateAfterManagerRestart runs the real controller (SetupWithManager: owner index, For, Owns) in a
// manager, stops it after it started the Job for a scheduled time, starts a new manager mid-schedule and
// makes it reconcile the CronJob: still one Job.
func TestNoDuplicateAfterManagerRestart(t *testing.T) {
	h := newHarness(t, t0.Add(time.Minute+5*time.Second))
	// Created before any manager runs, so the first reconcile already sees lastScheduleTime.
	h.createScheduledAt("managed", t0, nil)
	want := []string{JobName("managed", t0.Add(time.Minute))}

	stop := h.startManager()
	h.g.Eventually(func(g Gomega) {
		g.Expect(jobNames(h.jobs())).To(Equal(want))
		g.Expect(h.get("managed").Status.LastScheduleTime.Time).To(BeTemporally("==", t0.Add(time.Minute)))
	}).WithTimeout(20 * time.Second).WithPolling(50 * time.Millisecond).Should(Succeed())
	stop()

	stop = h.startManager()
	defer stop()
	h.update("managed", func(cj *batchv1.CronJob) { cj.Spec.SuccessfulJobsHistoryLimit = ptr.To[int32](4) })
	generation := h.get("managed").Generation
	h.g.Eventually(func() int64 { return h.get("managed").Status.ObservedGeneration }).
		WithTimeout(20 * time.Second).WithPolling(50 * time.Millisecond).Should(Equal(generation))
	h.g.Expect(jobNames(h.jobs())).To(Equal(want))
}

// startManager starts a manager running the CronJob controller with the harness' clock; the returned
// function stops it and waits until it has stopped.
func (h *harness) startManager() (stop func()) {
	h.t.Helper()
	mgr, err := newManager(h.ns)
	h.g.Expect(err).NotTo(HaveOccurred())
	r := &Reconciler{Client: mgr.GetClient(), Scheme: mgr.GetScheme(),
		Recorder: mgr.GetEventRecorder("cronjob-controller"), Clock: h.clock}
	h.g.Expect(r.SetupWithManager(mgr)).To(Succeed())
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- mgr.Start(ctx) }()
	return func() {
		cancel()
		h.g.Expect(<-done).To(Succeed())
	}
}
