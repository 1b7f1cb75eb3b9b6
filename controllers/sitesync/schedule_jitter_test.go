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

package sitesync

import (
	"testing"
	"time"

	. "github.com/onsi/gomega"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	gitopsv1alpha1 "github.com/siteops/siteops/apis/gitops/v1alpha1"
)

func TestJitteredStaysWithinTenPercent(t *testing.T) {
	cases := []struct {
		name string
		d    time.Duration
		r    float64
		want time.Duration
	}{
		{"lowest random gives 0.9d", time.Minute, 0, 54 * time.Second},
		{"middle random gives d", time.Minute, 0.5, time.Minute},
		{"highest random approaches 1.1d", 10 * time.Second, 0.999999, 10*time.Second + time.Second - 20*time.Microsecond},
		{"quarter random gives 0.95d", 100 * time.Second, 0.25, 95 * time.Second},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			g := NewWithT(t)
			got := jittered(tc.d, tc.r)
			g.Expect(got).To(BeNumerically("~", tc.want, time.Millisecond))
			g.Expect(got).To(BeNumerically(">=", tc.d*9/10))
			g.Expect(got).To(BeNumerically("<", tc.d*11/10))
		})
	}
}

func TestIntervalAndTimeoutDefaults(t *testing.T) {
	cases := []struct {
		name         string
		spec         gitopsv1alpha1.SiteSyncSpec
		wantInterval time.Duration
		wantTimeout  time.Duration
	}{
		{"unset uses defaults", gitopsv1alpha1.SiteSyncSpec{}, time.Minute, 2 * time.Minute},
		{"set values win", gitopsv1alpha1.SiteSyncSpec{
			Interval: &metav1.Duration{Duration: 30 * time.Second},
			Timeout:  &metav1.Duration{Duration: 5 * time.Second},
		}, 30 * time.Second, 5 * time.Second},
		{"zero values fall back", gitopsv1alpha1.SiteSyncSpec{
			Interval: &metav1.Duration{}, Timeout: &metav1.Duration{},
		}, time.Minute, 2 * time.Minute},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			g := NewWithT(t)
			obj := &gitopsv1alpha1.SiteSync{Spec: tc.spec}
			g.Expect(interval(obj)).To(Equal(tc.wantInterval))
			g.Expect(timeout(obj)).To(Equal(tc.wantTimeout))
		})
	}
}
