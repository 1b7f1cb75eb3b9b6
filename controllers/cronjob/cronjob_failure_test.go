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
	kbatchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"

	batchv1 "github.com/siteops/siteops/apis/batch/v1"
	"github.com/siteops/siteops/apis/batch/v1/cronjobtest"
)

// TestLastFailureTime: a run that fails sets status.lastFailureTime to when its Failed condition turned
// True and records one JobFailed warning with the condition's reason and message; a later success leaves
// lastFailureTime alone and sets lastSuccessfulTime.
func TestLastFailureTime(t *testing.T) {
	h := newHarness(t, t0)
	h.createScheduledAt("flaky", t0, func(cj *batchv1.CronJob) { cj.Spec.FailedJobsHistoryLimit = ptr.To[int32](3) })
	first := JobName("flaky", t0.Add(time.Minute))
	h.clock.SetTime(t0.Add(time.Minute + 5*time.Second))
	h.mustReconcile("flaky")
	h.g.Expect(h.get("flaky").Status.LastFailureTime).To(BeNil())
	h.drainEvents()

	failedAt := t0.Add(time.Minute + 40*time.Second)
	h.finish(first, false, failedAt)
	h.clock.SetTime(t0.Add(time.Minute + 50*time.Second))
	h.mustReconcile("flaky")
	got := h.get("flaky")
	h.g.Expect(got.Status.LastFailureTime).NotTo(BeNil())
	h.g.Expect(got.Status.LastFailureTime.Time).To(BeTemporally("==", failedAt))
	h.g.Expect(got.Status.LastSuccessfulTime).To(BeNil())
	h.g.Expect(h.drainEvents()).To(ConsistOf(
		"Normal SawCompletedJob Saw completed job: "+first+", condition: Failed",
		"Warning JobFailed Job "+first+" failed: BackoffLimitExceeded: Job has reached the specified backoff limit"))

	h.mustReconcile("flaky")
	h.g.Expect(h.drainEvents()).To(BeEmpty(), "one warning per failure")

	second := JobName("flaky", t0.Add(2*time.Minute))
	h.clock.SetTime(t0.Add(2*time.Minute + time.Second))
	h.mustReconcile("flaky")
	h.finish(second, true, t0.Add(2*time.Minute+20*time.Second))
	h.clock.SetTime(t0.Add(2*time.Minute + 30*time.Second))
	h.mustReconcile("flaky")
	got = h.get("flaky")
	h.g.Expect(got.Status.LastFailureTime.Time).To(BeTemporally("==", failedAt))
	h.g.Expect(got.Status.LastSuccessfulTime.Time).To(BeTemporally("==", t0.Add(2*time.Minute+20*time.Second)))
}

// TestNamespaceTerminatingNoFailedCreate: the namespace is being deleted (envtest runs no namespace
// controller, so it stays Terminating), so the apiserver refuses the Job with the NamespaceTerminating
// cause. Every reconcile returns that error for a retry, and none records a FailedCreate warning, as
// Kubernetes' controller does. A refusal for any other reason still records one.
func TestNamespaceTerminatingNoFailedCreate(t *testing.T) {
	h := newHarness(t, t0)
	h.createScheduledAt("doomed", t0, nil)
	h.createScheduledAt("taken", t0, nil)
	// "taken"'s Job name belongs to a Job another controller owns: that refusal is worth a warning.
	other := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: h.ns, Name: "other-owner"}}
	h.g.Expect(direct.Create(h.ctx, other)).To(Succeed())
	clash := cronjobBookJob(h, JobName("taken", t0.Add(time.Minute)))
	clash.OwnerReferences = []metav1.OwnerReference{{APIVersion: "v1", Kind: "ConfigMap", Name: other.Name,
		UID: other.UID, Controller: ptr.To(true)}}
	h.g.Expect(direct.Create(h.ctx, clash)).To(Succeed())
	h.clock.SetTime(t0.Add(time.Minute + 5*time.Second))
	_, err := h.reconcile("taken")
	h.g.Expect(err).To(HaveOccurred())
	h.g.Expect(h.drainEvents()).To(ContainElement(HavePrefix("Warning FailedCreate Job " + clash.Name)))

	ns := &corev1.Namespace{}
	h.g.Expect(direct.Get(h.ctx, types.NamespacedName{Name: h.ns}, ns)).To(Succeed())
	h.g.Expect(direct.Delete(h.ctx, ns)).To(Succeed())
	h.g.Eventually(func(g Gomega) {
		g.Expect(direct.Get(h.ctx, types.NamespacedName{Name: h.ns}, ns)).To(Succeed())
		g.Expect(ns.Status.Phase).To(Equal(corev1.NamespaceTerminating))
	}).WithTimeout(10 * time.Second).Should(Succeed())

	for range 3 {
		_, err := h.reconcile("doomed")
		h.g.Expect(err).To(HaveOccurred())
		h.g.Expect(apierrors.HasStatusCause(err, corev1.NamespaceTerminatingCause)).To(BeTrue(), "got %v", err)
	}
	h.g.Expect(h.jobs()).To(ConsistOf(HaveField("Name", clash.Name)))
	h.g.Expect(h.drainEvents()).To(BeEmpty(), "no FailedCreate while the namespace terminates")
}

// cronjobBookJob returns a Job in the harness' namespace with the book sample's Job template.
func cronjobBookJob(h *harness, name string) *kbatchv1.Job {
	return &kbatchv1.Job{ObjectMeta: metav1.ObjectMeta{Namespace: h.ns, Name: name},
		Spec: *cronjobtest.Valid(h.ns, "x").Spec.JobTemplate.Spec.DeepCopy()}
}
