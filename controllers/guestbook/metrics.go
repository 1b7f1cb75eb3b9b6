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

package guestbook

import (
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/siteops/siteops/internal/kit"
)

// Observer receives what the controller measures about failovers. The manager gives a reconciler whose
// writes are dry runs one that discards them: its promotions do not happen.
type Observer interface {
	// Failover is a promotion that replaced a previously active pod; down is how long no Ready pod was active
	// (0 when unknown).
	Failover(down time.Duration)
}

// Metrics records the failovers in Prometheus series; the manager registers them with its metrics registry and
// gives the leader's reconciler a Metrics as its Observer.
type Metrics struct {
	// failovers counts promotions that replaced a previously active pod.
	failovers prometheus.Counter
	// failoverSeconds observes, per failover, the time from the old active pod's Ready condition turning
	// False (or its deletion) to the new pod being labelled active.
	failoverSeconds prometheus.Histogram
}

// NewMetrics defines the Guestbook controller's series and registers them with reg.
func NewMetrics(reg prometheus.Registerer) (*Metrics, error) {
	failovers, err := kit.Register(reg, prometheus.NewCounter(prometheus.CounterOpts{
		Name: "siteops_guestbook_failovers_total",
		Help: "Promotions of a standby pod that replaced a Guestbook's previously active pod.",
	}))
	if err != nil {
		return nil, err
	}
	seconds, err := kit.Register(reg, prometheus.NewHistogram(prometheus.HistogramOpts{
		Name:    "siteops_guestbook_failover_seconds",
		Help:    "Time from the active pod stopping being Ready (or being deleted) to a standby being labelled active.",
		Buckets: []float64{0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60},
	}))
	if err != nil {
		return nil, err
	}
	return &Metrics{failovers: failovers, failoverSeconds: seconds}, nil
}

// Failover counts siteops_guestbook_failovers_total and, when down is known, observes
// siteops_guestbook_failover_seconds.
func (m *Metrics) Failover(down time.Duration) {
	m.failovers.Inc()
	if down > 0 {
		m.failoverSeconds.Observe(down.Seconds())
	}
}

// noObserver measures nothing: the Observer of a Reconciler given none.
type noObserver struct{}

func (noObserver) Failover(time.Duration) {}

// observer is r.Observer, or one that measures nothing.
func (r *Reconciler) observer() Observer {
	if r.Observer == nil {
		return noObserver{}
	}
	return r.Observer
}
