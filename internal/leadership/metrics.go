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
	"errors"

	"github.com/prometheus/client_golang/prometheus"
	"sigs.k8s.io/controller-runtime/pkg/metrics"
)

// leaderGauge is leader_election_master_status, the series controller-runtime's leader election reports: 1
// while this manager leads the Lease named by the label, else 0. controller-runtime registers it whatever
// election runs; registering the same definition again hands back the registered one, so dashboards and alerts
// read the same series whichever elector runs.
var leaderGauge = registeredGauge(prometheus.NewGaugeVec(prometheus.GaugeOpts{
	Name: "leader_election_master_status",
	Help: "Gauge of if the reporting system is master of the relevant lease, 0 indicates backup, 1 indicates master. 'name' is the string used to identify the lease. Please make sure to group by name.",
}, []string{"name"}))

// registeredGauge registers g, or returns the identical gauge already registered.
func registeredGauge(g *prometheus.GaugeVec) *prometheus.GaugeVec {
	err := metrics.Registry.Register(g)
	var already prometheus.AlreadyRegisteredError
	if errors.As(err, &already) {
		if existing, ok := already.ExistingCollector.(*prometheus.GaugeVec); ok {
			return existing
		}
	}
	if err != nil {
		panic(err) // a fixed definition: fails only if controller-runtime changes its own
	}
	return g
}
