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
	"sigs.k8s.io/controller-runtime/pkg/metrics"
)

// histogram reads the sample count and sum of a histogram from the controller-runtime registry the
// manager's metrics endpoint serves.
func histogram(t *testing.T, name string) (count uint64, sum float64) {
	t.Helper()
	families, err := metrics.Registry.Gather()
	NewWithT(t).Expect(err).NotTo(HaveOccurred())
	for _, f := range families {
		if f.GetName() == name {
			h := f.GetMetric()[0].GetHistogram()
			return h.GetSampleCount(), h.GetSampleSum()
		}
	}
	t.Fatalf("metric %s is not registered", name)
	return 0, 0
}

// TestScheduleLagMetric: a Job created 2s after its scheduled time adds one 2s sample to
// siteops_cronjob_schedule_lag_seconds; the missed counter is registered too.
func TestScheduleLagMetric(t *testing.T) {
	h := newHarness(t, t0)
	h.createScheduledAt("lag", t0, nil)
	count, sum := histogram(t, "siteops_cronjob_schedule_lag_seconds")
	h.clock.SetTime(t0.Add(time.Minute + 2*time.Second))
	h.mustReconcile("lag")
	count2, sum2 := histogram(t, "siteops_cronjob_schedule_lag_seconds")
	h.g.Expect(count2 - count).To(Equal(uint64(1)))
	h.g.Expect(sum2 - sum).To(BeNumerically("~", 2.0, 1e-9))

	families, err := metrics.Registry.Gather()
	h.g.Expect(err).NotTo(HaveOccurred())
	var names []string
	for _, f := range families {
		names = append(names, f.GetName())
	}
	h.g.Expect(names).To(ContainElement("siteops_cronjob_missed_schedules_total"))
}
