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

package main

import (
	"github.com/prometheus/client_golang/prometheus"

	"github.com/siteops/siteops/controllers/cronjob"
	"github.com/siteops/siteops/controllers/guestbook"
	"github.com/siteops/siteops/controllers/sitesync"
	"github.com/siteops/siteops/internal/leadership"
	"github.com/siteops/siteops/internal/standby"
)

// managerMetrics are the Prometheus series the manager's parts report, registered with the registry the
// metrics endpoint serves.
type managerMetrics struct {
	leadership *leadership.Metrics
	standby    *standby.Metrics
	cronjob    *cronjob.Metrics
	guestbook  *guestbook.Metrics
	sitesync   *sitesync.Metrics
}

// newMetrics defines every series and registers it with reg.
func newMetrics(reg prometheus.Registerer) (managerMetrics, error) {
	var m managerMetrics
	var err error
	if m.leadership, err = leadership.NewMetrics(reg); err != nil {
		return m, err
	}
	if m.standby, err = standby.NewMetrics(reg); err != nil {
		return m, err
	}
	if m.cronjob, err = cronjob.NewMetrics(reg); err != nil {
		return m, err
	}
	if m.guestbook, err = guestbook.NewMetrics(reg); err != nil {
		return m, err
	}
	if m.sitesync, err = sitesync.NewMetrics(reg); err != nil {
		return m, err
	}
	return m, nil
}
