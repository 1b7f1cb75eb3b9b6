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

package v1_test

import (
	"context"
	"testing"

	. "github.com/onsi/gomega"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/utils/ptr"

	batchv1 "github.com/siteops/siteops/apis/batch/v1"
	"github.com/siteops/siteops/apis/batch/v1/cronjobtest"
)

// TestValidateSchedule: standard expressions, descriptors and whole-minute @every are accepted, in any
// loadable zone; everything else is rejected on the field at fault.
func TestValidateSchedule(t *testing.T) {
	spec := field.NewPath("spec")
	tests := []struct {
		schedule string
		tz       *string
		field    string // "" = valid
	}{
		{"*/1 * * * *", nil, ""},
		{"30 6-16/4 * * 1-5", ptr.To("America/New_York"), ""},
		{"0 0 29 2 *", nil, ""},
		{"@hourly", nil, ""},
		{"@every 5m", nil, ""},
		{"@every 1h30m", ptr.To("UTC"), ""},
		{"  */1   *  * * *  ", nil, ""},
		{"0 9 * * MON-FRI", ptr.To("Asia/Tokyo"), ""},
		{"", nil, "spec.schedule"},
		{"* * * *", nil, "spec.schedule"},
		{"61 * * * *", nil, "spec.schedule"},
		{"CRON_TZ=UTC 0 * * * *", nil, "spec.schedule"},
		{"TZ=UTC 0 * * * *", nil, "spec.schedule"},
		{"@every 30s", nil, "spec.schedule"},
		{"@every -5m", nil, "spec.schedule"},
		{"@reboot", nil, "spec.schedule"},
		{"0 0 31 2 *", nil, "spec.schedule"},
		{"*/1 * * * *", ptr.To("Mars/Olympus"), "spec.timeZone"},
		{"*/1 * * * *", ptr.To(""), "spec.timeZone"},
		{"*/1 * * * *", ptr.To("local"), "spec.timeZone"},
	}
	for _, tc := range tests {
		t.Run(tc.schedule, func(t *testing.T) {
			g := NewWithT(t)
			errs := batchv1.ValidateSchedule(tc.schedule, tc.tz, spec)
			_, parseErr := batchv1.ParseSchedule(tc.schedule, tc.tz)
			if tc.field == "" {
				g.Expect(errs).To(BeEmpty())
				g.Expect(parseErr).NotTo(HaveOccurred())
				return
			}
			g.Expect(errs).NotTo(BeEmpty())
			g.Expect(parseErr).To(HaveOccurred())
			for _, e := range errs {
				g.Expect(e.Field).To(Equal(tc.field))
			}
		})
	}
}

// TestCRONTZMessagePointsAtTimeZone: the rejection of CRON_TZ= tells the user where the zone goes.
func TestCRONTZMessagePointsAtTimeZone(t *testing.T) {
	errs := batchv1.ValidateSchedule("CRON_TZ=Europe/Berlin 0 * * * *", nil, field.NewPath("spec"))
	NewWithT(t).Expect(errs.ToAggregate().Error()).To(ContainSubstring("set spec.timeZone instead"))
}

// TestValidateCronJobMatrix: the webhook's validation rejects every row of the admission matrix on the
// row's field, and accepts the book's sample.
func TestValidateCronJobMatrix(t *testing.T) {
	NewWithT(t).Expect(batchv1.ValidateCronJob(cronjobtest.Valid("ns", "ok"))).To(BeEmpty())
	for _, tc := range cronjobtest.InvalidCronJobs() {
		t.Run(tc.Name, func(t *testing.T) {
			cj := cronjobtest.Valid("ns", "ok")
			tc.Mutate(cj)
			errs := batchv1.ValidateCronJob(cj)
			var fields []string
			for _, e := range errs {
				fields = append(fields, e.Field)
			}
			NewWithT(t).Expect(fields).To(ContainElement(tc.Field))
		})
	}
}

// TestDefaulter fills what is unset and keeps what is set.
func TestDefaulter(t *testing.T) {
	g := NewWithT(t)
	cj := cronjobtest.Valid("ns", "d")
	cj.Spec.ConcurrencyPolicy = ""
	g.Expect(batchv1.CronJobDefaulter{}.Default(context.Background(), cj)).To(Succeed())
	g.Expect(cj.Spec.ConcurrencyPolicy).To(Equal(batchv1.AllowConcurrent))
	g.Expect(cj.Spec.Suspend).To(Equal(ptr.To(false)))
	g.Expect(cj.Spec.SuccessfulJobsHistoryLimit).To(Equal(ptr.To[int32](3)))
	g.Expect(cj.Spec.FailedJobsHistoryLimit).To(Equal(ptr.To[int32](1)))

	set := cronjobtest.Valid("ns", "s")
	set.Spec.ConcurrencyPolicy = batchv1.ForbidConcurrent
	set.Spec.Suspend = ptr.To(true)
	set.Spec.SuccessfulJobsHistoryLimit = ptr.To[int32](0)
	set.Spec.FailedJobsHistoryLimit = ptr.To[int32](7)
	g.Expect(batchv1.CronJobDefaulter{}.Default(context.Background(), set)).To(Succeed())
	g.Expect(set.Spec.ConcurrencyPolicy).To(Equal(batchv1.ForbidConcurrent))
	g.Expect(*set.Spec.Suspend).To(BeTrue())
	g.Expect(*set.Spec.SuccessfulJobsHistoryLimit).To(BeZero())
	g.Expect(*set.Spec.FailedJobsHistoryLimit).To(Equal(int32(7)))
}
