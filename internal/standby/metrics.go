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

package standby

import (
	"github.com/prometheus/client_golang/prometheus"

	"github.com/siteops/siteops/internal/kit"
)

// Metrics counts the writes a manager that does not lead would have made. A nil *Metrics counts nothing.
type Metrics struct {
	writes *prometheus.CounterVec
}

// NewMetrics defines siteops_standby_writes and registers it with reg (the manager's metrics registry).
func NewMetrics(reg prometheus.Registerer) (*Metrics, error) {
	writes, err := kit.Register(reg, prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "siteops_standby_writes",
		Help: "Writes a manager that does not hold the leader lease would have made (sent as server-side dry " +
			"runs), by kind.",
	}, []string{"kind"}))
	if err != nil {
		return nil, err
	}
	return &Metrics{writes: writes}, nil
}

// dryRun counts one dry-run write of kind.
func (m *Metrics) dryRun(kind string) {
	if m != nil {
		m.writes.WithLabelValues(kind).Inc()
	}
}
