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

package leadership

import (
	"github.com/prometheus/client_golang/prometheus"

	"github.com/siteops/siteops/internal/kit"
)

// Metrics reports leadership as leader_election_master_status, the series controller-runtime's leader election
// reports: 1 while this manager leads the Lease named by the label, else 0. A nil *Metrics reports nothing.
type Metrics struct {
	leader *prometheus.GaugeVec
}

// NewMetrics registers leader_election_master_status with reg (the manager's metrics registry).
// controller-runtime registers the same definition with its registry whichever election runs; NewMetrics then
// uses the registered gauge, so dashboards and alerts read the same series whichever elector runs.
func NewMetrics(reg prometheus.Registerer) (*Metrics, error) {
	leader, err := kit.Register(reg, prometheus.NewGaugeVec(prometheus.GaugeOpts{
		Name: "leader_election_master_status",
		Help: "Gauge of if the reporting system is master of the relevant lease, 0 indicates backup, 1 indicates " +
			"master. 'name' is the string used to identify the lease. Please make sure to group by name.",
	}, []string{"name"}))
	if err != nil {
		return nil, err
	}
	return &Metrics{leader: leader}, nil
}

// setLeading sets lease's series to 1 when leading, else 0.
func (m *Metrics) setLeading(lease string, leading bool) {
	if m == nil {
		return
	}
	v := 0.0
	if leading {
		v = 1
	}
	m.leader.WithLabelValues(lease).Set(v)
}
