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

	. "github.com/onsi/gomega"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	batchv1 "github.com/siteops/siteops/apis/batch/v1"
	"github.com/siteops/siteops/apis/batch/v1/cronjobtest"
)

// TestAdmissionWithoutWebhook runs the CronJob admission matrix against the apiserver with no webhook: every
// row the CRD's schema and CEL rules can judge is rejected as Invalid naming its field path, and the rows only
// the webhook can judge get through (the controller then stalls on them, see TestInvalidScheduleStalls).
func TestAdmissionWithoutWebhook(t *testing.T) {
	h := newHarness(t, t0)
	rejected := 0
	for i, tc := range cronjobtest.InvalidCronJobs() {
		t.Run(tc.Name, func(t *testing.T) {
			g := NewWithT(t)
			cj := cronjobtest.Valid(h.ns, "")
			cj.Name = "bad-" + string(rune('a'+i%26)) + string(rune('a'+i/26))
			tc.Mutate(cj)
			err := direct.Create(h.ctx, cj)
			if !tc.CEL {
				g.Expect(err).NotTo(HaveOccurred(), "only the webhook rejects this")
				return
			}
			g.Expect(apierrors.IsInvalid(err)).To(BeTrue(), "want Invalid, got %v", err)
			g.Expect(err.Error()).To(ContainSubstring(tc.Field))
			rejected++
		})
	}
	h.g.Expect(rejected).To(BeNumerically(">=", 15))
}

// TestDefaultsWithoutWebhook: the CRD's default markers fill concurrencyPolicy, suspend and the history
// limits when nobody runs the defaulting webhook.
func TestDefaultsWithoutWebhook(t *testing.T) {
	h := newHarness(t, t0)
	cj := h.create("defaults", func(cj *batchv1.CronJob) { cj.Spec.ConcurrencyPolicy = "" })
	got := h.get(cj.Name)
	h.g.Expect(got.Spec.ConcurrencyPolicy).To(Equal(batchv1.AllowConcurrent))
	h.g.Expect(got.Spec.Suspend).To(Equal(ptr.To(false)))
	h.g.Expect(got.Spec.SuccessfulJobsHistoryLimit).To(Equal(ptr.To[int32](3)))
	h.g.Expect(got.Spec.FailedJobsHistoryLimit).To(Equal(ptr.To[int32](1)))
}

// TestCatchUpDefaultWithoutWebhook: the CRD's default marker gives catchUp: {} maxRuns 1 when nobody runs the
// defaulting webhook; spread and lagObjectiveSeconds have no default and stay unset.
func TestCatchUpDefaultWithoutWebhook(t *testing.T) {
	h := newHarness(t, t0)
	cj := h.create("catchup-default", func(cj *batchv1.CronJob) { cj.Spec.CatchUp = &batchv1.CatchUpPolicy{} })
	got := h.get(cj.Name)
	h.g.Expect(got.Spec.CatchUp).NotTo(BeNil())
	h.g.Expect(got.Spec.CatchUp.MaxRuns).To(Equal(ptr.To(batchv1.DefaultCatchUpMaxRuns)))
	h.g.Expect(got.Spec.Spread).To(BeNil())
	h.g.Expect(got.Spec.LagObjectiveSeconds).To(BeNil())
}

// TestSpreadMustBeADuration: spec.spread is a Go duration string; the CRD's schema rejects anything else (a
// bare number, a word) naming spec.spread, so the controller never reads one it cannot decode.
func TestSpreadMustBeADuration(t *testing.T) {
	h := newHarness(t, t0)
	for spread, valid := range map[string]bool{"90": false, "soon": false, "1m30s": true, "250ms": true, "0": true} {
		u := &unstructured.Unstructured{}
		obj, err := runtime.DefaultUnstructuredConverter.ToUnstructured(cronjobtest.Valid(h.ns, "spread"))
		h.g.Expect(err).NotTo(HaveOccurred())
		u.SetUnstructuredContent(obj)
		u.SetGroupVersionKind(batchv1.GroupVersion.WithKind("CronJob"))
		h.g.Expect(unstructured.SetNestedField(u.Object, spread, "spec", "spread")).To(Succeed())
		err = direct.Create(h.ctx, u, client.DryRunAll)
		if valid {
			h.g.Expect(err).NotTo(HaveOccurred(), "spread %q", spread)
			continue
		}
		h.g.Expect(apierrors.IsInvalid(err)).To(BeTrue(), "spread %q: want Invalid, got %v", spread, err)
		h.g.Expect(err.Error()).To(ContainSubstring("spec.spread"))
	}
}
