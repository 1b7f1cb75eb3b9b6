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
	"context"
	"fmt"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"sigs.k8s.io/controller-runtime/pkg/client"

	gitopsv1alpha1 "github.com/siteops/siteops/apis/gitops/v1alpha1"
)

// rolloutPhases are the phases siteops_rollout_phase reports, one series each, as kube-state-metrics reports a
// Pod's phase: the current one is 1, the others 0, so a dashboard can draw the phase over time.
func rolloutPhases() []gitopsv1alpha1.RolloutPhase {
	return []gitopsv1alpha1.RolloutPhase{gitopsv1alpha1.RolloutProgressing, gitopsv1alpha1.RolloutSoaking,
		gitopsv1alpha1.RolloutAnalyzing, gitopsv1alpha1.RolloutInconclusive, gitopsv1alpha1.RolloutPaused,
		gitopsv1alpha1.RolloutHalted, gitopsv1alpha1.RolloutFrozen, gitopsv1alpha1.RolloutWaitingForApproval,
		gitopsv1alpha1.RolloutComplete}
}

// FleetCollector reports the fleet as the SiteSyncs' status shows it, read at each scrape from the manager's
// cache: how many sites are in each delivery state, how many failed to render, and where each rollout is. The
// series are per SiteSync and wave, never per site, so a fleet of thousands of sites stays a few series.
// Every manager reports them, leader or not: a dashboard takes the max over the pods.
type FleetCollector struct {
	reader  client.Reader
	timeout time.Duration

	sites        *prometheus.Desc
	renderFailed *prometheus.Desc
	phase        *prometheus.Desc
	waveSites    *prometheus.Desc
}

// NewFleetCollector returns a FleetCollector that lists SiteSyncs with reader (the manager's cache).
func NewFleetCollector(reader client.Reader) *FleetCollector {
	key := []string{"namespace", "name"}
	return &FleetCollector{reader: reader, timeout: 5 * time.Second,
		sites: prometheus.NewDesc("siteops_sitesync_sites",
			"Sites of a SiteSync by delivery state (Delivered, Pending, OutOfSync, Degraded, Unreachable, "+
				"NoApplication, NotObserved).", append(key, "delivery"), nil),
		renderFailed: prometheus.NewDesc("siteops_sitesync_render_failed_sites",
			"Sites of a SiteSync whose last render failed.", key, nil),
		phase: prometheus.NewDesc("siteops_rollout_phase",
			"1 for the phase a SiteSync's rollout is in, 0 for the others.", append(key, "phase"), nil),
		waveSites: prometheus.NewDesc("siteops_rollout_sites",
			"Sites of a SiteSync's rollout by wave and state (Unchanged, Pending, Published, Halted, Reverted).",
			append(key, "wave", "state"), nil),
	}
}

// Describe sends the descriptors of every series the collector reports.
func (c *FleetCollector) Describe(ch chan<- *prometheus.Desc) {
	ch <- c.sites
	ch <- c.renderFailed
	ch <- c.phase
	ch <- c.waveSites
}

// Collect lists the SiteSyncs and reports their series; a failed list is reported to the scraper as an error.
func (c *FleetCollector) Collect(ch chan<- prometheus.Metric) {
	ctx, cancel := context.WithTimeout(context.Background(), c.timeout)
	defer cancel()
	var list gitopsv1alpha1.SiteSyncList
	if err := c.reader.List(ctx, &list); err != nil {
		ch <- prometheus.NewInvalidMetric(c.sites, fmt.Errorf("listing SiteSyncs: %w", err))
		return
	}
	for i := range list.Items {
		c.collectOne(ch, &list.Items[i])
	}
}

// collectOne reports one SiteSync's series.
func (c *FleetCollector) collectOne(ch chan<- prometheus.Metric, ss *gitopsv1alpha1.SiteSync) {
	ns, name := ss.Namespace, ss.Name
	byDelivery := map[gitopsv1alpha1.DeliveryState]int{}
	failed := 0
	for _, s := range ss.Status.Sites {
		d := s.Delivery
		if d == "" {
			d = gitopsv1alpha1.DeliveryNotObserved
		}
		byDelivery[d]++
		if !s.Ready {
			failed++
		}
	}
	for d, n := range byDelivery {
		ch <- prometheus.MustNewConstMetric(c.sites, prometheus.GaugeValue, float64(n), ns, name, string(d))
	}
	ch <- prometheus.MustNewConstMetric(c.renderFailed, prometheus.GaugeValue, float64(failed), ns, name)

	r := ss.Status.Rollout
	if r == nil {
		return
	}
	for _, p := range rolloutPhases() {
		v := 0.0
		if r.Phase == p {
			v = 1
		}
		ch <- prometheus.MustNewConstMetric(c.phase, prometheus.GaugeValue, v, ns, name, string(p))
	}
	type waveState struct {
		wave  string
		state gitopsv1alpha1.SiteRolloutState
	}
	byWave := map[waveState]int{}
	for _, s := range r.Sites {
		byWave[waveState{s.Wave, s.State}]++
	}
	for k, n := range byWave {
		ch <- prometheus.MustNewConstMetric(c.waveSites, prometheus.GaugeValue, float64(n), ns, name, k.wave,
			string(k.state))
	}
}

// FleetMetrics registers a collector of the fleet (a FleetCollector, a LedgerCollector) with a registry while
// the manager runs: it is a manager Runnable, so the collector's reader is the manager's started cache and a
// second manager in the same process replaces it.
type FleetMetrics struct {
	Registry  prometheus.Registerer
	Collector prometheus.Collector
}

// Start registers the collector, waits for ctx to end, then unregisters it.
func (f FleetMetrics) Start(ctx context.Context) error {
	if err := f.Registry.Register(f.Collector); err != nil {
		return fmt.Errorf("registering the fleet metrics: %w", err)
	}
	<-ctx.Done()
	f.Registry.Unregister(f.Collector)
	return nil
}

// NeedLeaderElection is false: every manager, leader or standby, reports the fleet.
func (f FleetMetrics) NeedLeaderElection() bool { return false }
