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
	"time"

	. "github.com/onsi/gomega"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	batchv1 "github.com/siteops/siteops/apis/batch/v1"
	"github.com/siteops/siteops/apis/batch/v1/cronjobtest"
)

// TestShortestInterval: the limit of spec.spread, for regular, irregular, descriptor and @every schedules,
// measured in UTC whatever the zone.
func TestShortestInterval(t *testing.T) {
	for _, tc := range []struct {
		schedule string
		tz       *string
		want     time.Duration
	}{
		{"*/1 * * * *", nil, time.Minute},
		{"*/5 * * * *", nil, 5 * time.Minute},
		{"0 * * * ?", nil, time.Hour},
		{"@hourly", nil, time.Hour},
		{"@daily", nil, 24 * time.Hour},
		{"0 9,17 * * 1-5", nil, 8 * time.Hour},
		{"30 6-16/4 * * 1-5", ptr.To("America/New_York"), 4 * time.Hour},
		{"59 23 * * *", nil, 24 * time.Hour},
		{"0 0 1 * *", nil, 28 * 24 * time.Hour},
		{"0 0 29 2 *", nil, 4*365*24*time.Hour + 24*time.Hour},
		{"30 1 * * *", ptr.To("America/New_York"), 24 * time.Hour},
		{"@every 90m", nil, 90 * time.Minute},
	} {
		t.Run(tc.schedule, func(t *testing.T) {
			g := NewWithT(t)
			sched, err := batchv1.ParseSchedule(tc.schedule, tc.tz)
			g.Expect(err).NotTo(HaveOccurred())
			g.Expect(batchv1.ShortestInterval(sched)).To(Equal(tc.want))
		})
	}
}

// TestValidateExtensions: spread up to the shortest interval, catchUp.maxRuns 1..100 and a positive lag
// objective are accepted; the admission matrix has the rejected cases.
func TestValidateExtensions(t *testing.T) {
	for _, tc := range []struct {
		name   string
		mutate func(*batchv1.CronJob)
		field  string // "" = valid
	}{
		{"spread 0s", func(cj *batchv1.CronJob) { cj.Spec.Spread = &metav1.Duration{} }, ""},
		{"spread equal to the interval", func(cj *batchv1.CronJob) {
			cj.Spec.Spread = &metav1.Duration{Duration: time.Minute}
		}, ""},
		{"spread 59m on an hourly schedule in a zone", func(cj *batchv1.CronJob) {
			cj.Spec.Schedule, cj.Spec.TimeZone = "59 * * * *", ptr.To("Europe/Berlin")
			cj.Spec.Spread = &metav1.Duration{Duration: 59 * time.Minute}
		}, ""},
		{"spread 61m on an hourly schedule", func(cj *batchv1.CronJob) {
			cj.Spec.Schedule = "@hourly"
			cj.Spec.Spread = &metav1.Duration{Duration: 61 * time.Minute}
		}, "spec.spread"},
		{"catchUp maxRuns 1 and 100", func(cj *batchv1.CronJob) {
			cj.Spec.CatchUp = &batchv1.CatchUpPolicy{MaxRuns: ptr.To[int32](100)}
		}, ""},
		{"catchUp without maxRuns", func(cj *batchv1.CronJob) { cj.Spec.CatchUp = &batchv1.CatchUpPolicy{} }, ""},
		{"lagObjectiveSeconds 1", func(cj *batchv1.CronJob) { cj.Spec.LagObjectiveSeconds = ptr.To[int64](1) }, ""},
		{"negative lagObjectiveSeconds", func(cj *batchv1.CronJob) {
			cj.Spec.LagObjectiveSeconds = ptr.To[int64](-5)
		}, "spec.lagObjectiveSeconds"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g := NewWithT(t)
			cj := cronjobtest.Valid("ns", "ext")
			tc.mutate(cj)
			errs := batchv1.ValidateCronJob(cj)
			if tc.field == "" {
				g.Expect(errs).To(BeEmpty())
				return
			}
			g.Expect(errs).To(HaveLen(1))
			g.Expect(errs[0].Field).To(Equal(tc.field))
		})
	}
}

// TestDefaulterCatchUp: catchUp without maxRuns gets 1; a set maxRuns is kept; no catchUp stays unset.
func TestDefaulterCatchUp(t *testing.T) {
	g := NewWithT(t)
	cj := cronjobtest.Valid("ns", "c")
	cj.Spec.CatchUp = &batchv1.CatchUpPolicy{}
	g.Expect(batchv1.CronJobDefaulter{}.Default(context.Background(), cj)).To(Succeed())
	g.Expect(cj.Spec.CatchUp.MaxRuns).To(Equal(ptr.To(batchv1.DefaultCatchUpMaxRuns)))

	set := cronjobtest.Valid("ns", "s")
	set.Spec.CatchUp = &batchv1.CatchUpPolicy{MaxRuns: ptr.To[int32](7)}
	g.Expect(batchv1.CronJobDefaulter{}.Default(context.Background(), set)).To(Succeed())
	g.Expect(*set.Spec.CatchUp.MaxRuns).To(Equal(int32(7)))

	none := cronjobtest.Valid("ns", "n")
	g.Expect(batchv1.CronJobDefaulter{}.Default(context.Background(), none)).To(Succeed())
	g.Expect(none.Spec.CatchUp).To(BeNil())
	g.Expect(none.Spec.Spread).To(BeNil())
	g.Expect(none.Spec.LagObjectiveSeconds).To(BeNil())
}
