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

	"github.com/siteops/siteops/internal/kit"
)

// Observer receives what the controller measures about schedules. The manager gives a reconciler whose
// writes are dry runs one that discards them: its decisions take no effect.
type Observer interface {
	// ScheduleLag is how late a Job was created after its scheduled time.
	ScheduleLag(time.Duration)
	// MissedSchedules counts scheduled times given up.
	MissedSchedules(n int)
}

// Metrics records the measurements in Prometheus series; the manager registers them with its metrics registry
// and gives the leader's reconciler a Metrics as its Observer.
type Metrics struct {
	// scheduleLag is how late a Job was created after its scheduled time.
	scheduleLag prometheus.Histogram
	// missedSchedules counts scheduled times given up: superseded by a later due time or past
	// startingDeadlineSeconds.
	missedSchedules prometheus.Counter
}

// NewMetrics defines the CronJob controller's series and registers them with reg.
func NewMetrics(reg prometheus.Registerer) (*Metrics, error) {
	lag, err := kit.Register(reg, prometheus.NewHistogram(prometheus.HistogramOpts{
		Name:    "siteops_cronjob_schedule_lag_seconds",
		Help:    "Time from a CronJob's scheduled time to the creation of its Job, in seconds.",
		Buckets: []float64{0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300, 3600},
	}))
	if err != nil {
		return nil, err
	}
	missed, err := kit.Register(reg, prometheus.NewCounter(prometheus.CounterOpts{
		Name: "siteops_cronjob_missed_schedules_total",
		Help: "Scheduled CronJob start times that were not run (superseded by a later one or past " +
			"startingDeadlineSeconds).",
	}))
	if err != nil {
		return nil, err
	}
	return &Metrics{scheduleLag: lag, missedSchedules: missed}, nil
}

// ScheduleLag observes siteops_cronjob_schedule_lag_seconds.
func (m *Metrics) ScheduleLag(d time.Duration) { m.scheduleLag.Observe(d.Seconds()) }

// MissedSchedules adds to siteops_cronjob_missed_schedules_total.
func (m *Metrics) MissedSchedules(n int) { m.missedSchedules.Add(float64(n)) }

// noObserver measures nothing: the Observer of a Reconciler given none.
type noObserver struct{}

func (noObserver) ScheduleLag(time.Duration) {}
func (noObserver) MissedSchedules(int)       {}

// observer is r.Observer, or one that measures nothing.
func (r *Reconciler) observer() Observer {
	if r.Observer == nil {
		return noObserver{}
	}
	return r.Observer
}
