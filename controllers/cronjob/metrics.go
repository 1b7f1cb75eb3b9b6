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
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"sigs.k8s.io/controller-runtime/pkg/metrics"
)

// Observer receives what the controller measures about schedules. The manager gives a reconciler whose
// writes are dry runs one that discards them: its decisions take no effect.
type Observer interface {
	// ScheduleLag is how late a Job was created after its scheduled time.
	ScheduleLag(time.Duration)
	// MissedSchedules counts scheduled times given up.
	MissedSchedules(n int)
}

var (
	// scheduleLag is how late a Job was created after its scheduled time.
	scheduleLag = prometheus.NewHistogram(prometheus.HistogramOpts{
		Name:    "siteops_cronjob_schedule_lag_seconds",
		Help:    "Time from a CronJob's scheduled time to the creation of its Job, in seconds.",
		Buckets: []float64{0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300, 3600},
	})
	// missedSchedules counts scheduled times given up: superseded by a later due time or past
	// startingDeadlineSeconds.
	missedSchedules = prometheus.NewCounter(prometheus.CounterOpts{
		Name: "siteops_cronjob_missed_schedules_total",
		Help: "Scheduled CronJob start times that were not run (superseded by a later one or past startingDeadlineSeconds).",
	})
)

func init() {
	metrics.Registry.MustRegister(scheduleLag, missedSchedules)
}

// PrometheusObserver records the measurements in the metrics served on /metrics.
type PrometheusObserver struct{}

// ScheduleLag observes siteops_cronjob_schedule_lag_seconds.
func (PrometheusObserver) ScheduleLag(d time.Duration) { scheduleLag.Observe(d.Seconds()) }

// MissedSchedules adds to siteops_cronjob_missed_schedules_total.
func (PrometheusObserver) MissedSchedules(n int) { missedSchedules.Add(float64(n)) }

// observer is r.Observer, or the Prometheus one.
func (r *Reconciler) observer() Observer {
	if r.Observer == nil {
		return PrometheusObserver{}
	}
	return r.Observer
}
