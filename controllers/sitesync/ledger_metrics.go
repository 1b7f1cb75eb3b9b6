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
	"k8s.io/utils/clock"
	"sigs.k8s.io/controller-runtime/pkg/client"

	gitopsv1alpha1 "github.com/siteops/siteops/apis/gitops/v1alpha1"
	"github.com/siteops/siteops/gitops/ledger"
	"github.com/siteops/siteops/internal/sitesyncledger"
)

// LedgerCollector reports each SiteSync's delivery ledger over the Ledger's window, computed at each scrape
// from the SiteSync's status.history (read from the manager's cache) and the rendered commits the Ledger
// keeps. The series are per SiteSync, never per site (`siteops ledger` shows the sites). Only the leader
// reads the rendered branch, so only the leader reports a SiteSync's ledger, once it has read it.
type LedgerCollector struct {
	reader  client.Reader
	ledger  *Ledger
	clock   clock.PassiveClock
	timeout time.Duration

	window, deployments, perDay, failed, failureRate, leadTime, restore *prometheus.Desc
}

// NewLedgerCollector returns a LedgerCollector that lists SiteSyncs with reader (the manager's cache) and
// reads the rendered commits from l.
func NewLedgerCollector(reader client.Reader, l *Ledger, clk clock.PassiveClock) *LedgerCollector {
	key := []string{"namespace", "name"}
	desc := func(name, help string) *prometheus.Desc { return prometheus.NewDesc(name, help, key, nil) }
	return &LedgerCollector{reader: reader, ledger: l, clock: clk, timeout: 5 * time.Second,
		window: prometheus.NewDesc("siteops_ledger_window_seconds",
			"The period the siteops_ledger_* series cover, ending at the scrape.", nil, nil),
		deployments: desc("siteops_ledger_deployments",
			"Source revisions a SiteSync published to the rendered branch within the ledger's window."),
		perDay: desc("siteops_ledger_deployments_per_day",
			"Deployment frequency: siteops_ledger_deployments divided by the window's days."),
		failed: desc("siteops_ledger_failed_changes",
			"Of siteops_ledger_deployments, the source revisions whose rollout halted or which a revert undid."),
		failureRate: desc("siteops_ledger_change_failure_ratio",
			"Change failure rate: siteops_ledger_failed_changes ÷ siteops_ledger_deployments."),
		leadTime: desc("siteops_ledger_lead_time_seconds",
			"Lead time for changes: source commit time → every site Delivered, per revision delivered in the window."),
		restore: desc("siteops_ledger_time_to_restore_seconds",
			"Time to restore: rollout halted → every site Delivered again, per halt restored in the window."),
	}
}

// Describe sends the descriptors of every series the collector reports.
func (c *LedgerCollector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{c.window, c.deployments, c.perDay, c.failed, c.failureRate,
		c.leadTime, c.restore} {
		ch <- d
	}
}

// Collect lists the SiteSyncs and reports the ledger of each whose rendered commits were read.
func (c *LedgerCollector) Collect(ch chan<- prometheus.Metric) {
	ctx, cancel := context.WithTimeout(context.Background(), c.timeout)
	defer cancel()
	var list gitopsv1alpha1.SiteSyncList
	if err := c.reader.List(ctx, &list); err != nil {
		ch <- prometheus.NewInvalidMetric(c.deployments, fmt.Errorf("listing SiteSyncs: %w", err))
		return
	}
	w := c.ledger.window(c.clock.Now())
	ch <- prometheus.MustNewConstMetric(c.window, prometheus.GaugeValue, w.To.Sub(w.From).Seconds())
	for i := range list.Items {
		ss := &list.Items[i]
		pubs, ok := c.ledger.publishes(client.ObjectKeyFromObject(ss))
		if !ok {
			continue
		}
		c.collectOne(ch, ss, sitesyncledger.Report(ss, pubs, w))
	}
}

// collectOne reports one SiteSync's ledger.
func (c *LedgerCollector) collectOne(ch chan<- prometheus.Metric, ss *gitopsv1alpha1.SiteSync, rep ledger.Report) {
	ns, name := ss.Namespace, ss.Name
	gauge := func(d *prometheus.Desc, v float64) {
		ch <- prometheus.MustNewConstMetric(d, prometheus.GaugeValue, v, ns, name)
	}
	gauge(c.deployments, float64(rep.Deployments))
	gauge(c.perDay, rep.DeploymentsPerDay)
	gauge(c.failed, float64(rep.FailedChanges))
	gauge(c.failureRate, rep.ChangeFailureRate)
	summary := func(d *prometheus.Desc, ds ledger.Durations) {
		ch <- prometheus.MustNewConstSummary(d, uint64(ds.Count), ds.SumSeconds,
			map[float64]float64{0.5: ds.MedianSeconds, 1: ds.MaxSeconds}, ns, name)
	}
	summary(c.leadTime, rep.LeadTime)
	summary(c.restore, rep.TimeToRestore)
}
