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
	"github.com/prometheus/client_golang/prometheus/testutil"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/metrics"

	batchv1 "github.com/siteops/siteops/apis/batch/v1"
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

// recordingObserver keeps what a reconciler measured.
type recordingObserver struct {
	lags   []time.Duration
	missed int
}

func (o *recordingObserver) ScheduleLag(d time.Duration) { o.lags = append(o.lags, d) }
func (o *recordingObserver) MissedSchedules(n int)       { o.missed += n }

// TestObserverTakesTheMeasurements: a reconciler given its own Observer (the manager gives a standby one that
// discards) reports the lag and the missed times to it, and nothing to the Prometheus metrics; without one,
// the same measurements go to the metrics.
func TestObserverTakesTheMeasurements(t *testing.T) {
	h := newHarness(t, t0)
	// Both missed times are within startingDeadlineSeconds, so both count.
	withinDeadline := func(cj *batchv1.CronJob) { cj.Spec.StartingDeadlineSeconds = ptr.To[int64](300) }
	h.createScheduledAt("observed", t0, withinDeadline)
	count, _ := histogram(t, "siteops_cronjob_schedule_lag_seconds")
	missed := testutil.ToFloat64(testMetrics.missedSchedules)
	h.clock.SetTime(t0.Add(3*time.Minute + time.Second))

	obs := &recordingObserver{}
	r := h.newReconciler()
	r.Observer = obs
	_, err := h.reconcileWith(r, "observed")
	h.g.Expect(err).NotTo(HaveOccurred())
	h.g.Expect(obs.lags).To(Equal([]time.Duration{time.Second}))
	h.g.Expect(obs.missed).To(Equal(2))
	count2, _ := histogram(t, "siteops_cronjob_schedule_lag_seconds")
	h.g.Expect(count2).To(Equal(count), "nothing reached the metrics")
	h.g.Expect(testutil.ToFloat64(testMetrics.missedSchedules)).To(Equal(missed))

	h.createScheduledAt("metered", t0, withinDeadline)
	h.mustReconcile("metered")
	count3, _ := histogram(t, "siteops_cronjob_schedule_lag_seconds")
	h.g.Expect(count3 - count).To(Equal(uint64(1)))
	h.g.Expect(testutil.ToFloat64(testMetrics.missedSchedules) - missed).To(Equal(2.0))
}
