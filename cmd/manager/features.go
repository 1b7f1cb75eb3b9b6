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
	"crypto/tls"
	"fmt"

	"github.com/prometheus/client_golang/prometheus"
	"k8s.io/utils/clock"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/metrics"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	batchv1 "github.com/siteops/siteops/apis/batch/v1"
	"github.com/siteops/siteops/controllers/cronjob"
	"github.com/siteops/siteops/controllers/guestbook"
	"github.com/siteops/siteops/controllers/sitesync"
	"github.com/siteops/siteops/controllers/sitesync/receiver"
	"github.com/siteops/siteops/internal/kit"
	"github.com/siteops/siteops/internal/leadership"
	"github.com/siteops/siteops/internal/standby"
)

// setupFeatures registers every reconciler, webhook and the push receiver with the manager. Every controller
// runs through a standby.Gate that asks fence on each reconcile: while the manager leads, the leader's
// reconciler, whose writes the fence refuses the moment leadership is lost; otherwise, with standby mode, the
// CronJob and Guestbook controllers over a dry-run write recorder and an observer that measures nothing, each
// object at most once per --standby-interval, and the leader-only controllers not at all. Each gain of
// leadership re-queues every object. The controllers themselves do not know.
func setupFeatures(mgr ctrl.Manager, o options, clk clock.Clock, fence *leadership.Fence, tlsOpts []func(*tls.Config),
	m managerMetrics) error {
	wc := newWriteClients(mgr, fence, m.standby)
	if o.standbyAddr != "0" {
		if err := mgr.Add(&standby.ReportServer{Addr: o.standbyAddr, Standby: wc.standbyReport, Leader: wc.leaderReport,
			Leadership: fence, Secure: o.secureStandby, Config: mgr.GetConfig(), HTTPClient: mgr.GetHTTPClient(),
			TLSOpts: tlsOpts, Log: mgr.GetLogger().WithName("standby-report")}); err != nil {
			return fmt.Errorf("adding the standby report server: %w", err)
		}
	}
	// standbyOf is how a controller runs: through a gate over its standby twin in standby mode, else only
	// while leading.
	standbyOf := func(twin reconcile.Reconciler) kit.Completer {
		if !o.standby {
			return standby.Completer(mgr, fence, standby.Idle{}, 0)
		}
		return standby.Completer(mgr, fence, twin, o.standbyInterval)
	}

	cj := &cronjob.Reconciler{Client: wc.leader, Scheme: mgr.GetScheme(),
		Recorder: mgr.GetEventRecorder("siteops-cronjob"), Clock: clk,
		Observer: m.cronjob,
		Complete: standbyOf(&cronjob.Reconciler{Client: wc.standby, Scheme: mgr.GetScheme(), Recorder: wc.discard, Clock: clk,
			Observer: standby.Discard{}})}
	if err := cj.SetupWithManager(mgr); err != nil {
		return fmt.Errorf("setting up the CronJob controller: %w", err)
	}

	configHashes := &guestbook.ConfigHashes{}
	gb := &guestbook.Reconciler{Client: wc.leader, ConfigHashes: configHashes, Scheme: mgr.GetScheme(),
		Recorder: mgr.GetEventRecorder("siteops-guestbook"), Clock: clk, Observer: m.guestbook,
		Complete: standbyOf(&guestbook.Reconciler{Client: wc.standby, APIReader: mgr.GetAPIReader(),
			ConfigHashes: configHashes, Scheme: mgr.GetScheme(), Recorder: wc.discard, Clock: clk,
			Observer: standby.Discard{}})}
	if err := gb.SetupWithManager(mgr); err != nil {
		return fmt.Errorf("setting up the Guestbook controller: %w", err)
	}

	// SiteSync pushes to Git, which has no dry run: it has no standby and runs only on the leader.
	ledger := &sitesync.Ledger{Window: o.ledgerWindow}
	ss := &sitesync.Reconciler{Client: wc.leader, APIReader: mgr.GetAPIReader(), Scheme: mgr.GetScheme(),
		Recorder: mgr.GetEventRecorder("siteops-sitesync"), Clock: clk, WorkDir: o.workDir, Metrics: m.sitesync,
		Ledger: ledger, Complete: standby.Completer(mgr, fence, standby.Idle{}, 0)}
	if err := ss.SetupWithManager(mgr); err != nil {
		return fmt.Errorf("setting up the SiteSync controller: %w", err)
	}
	for _, c := range []prometheus.Collector{sitesync.NewFleetCollector(mgr.GetCache()),
		sitesync.NewLedgerCollector(mgr.GetCache(), ledger, clk)} {
		if err := mgr.Add(sitesync.FleetMetrics{Registry: metrics.Registry, Collector: c}); err != nil {
			return fmt.Errorf("adding the fleet metrics: %w", err)
		}
	}
	// The receiver's trigger is a write: a manager that does not lead answers 503 and the Git host retries.
	if o.receiverAddr != "0" {
		if err := mgr.Add(receiver.NewServer(o.receiverAddr, wc.fenced, mgr.GetAPIReader(), clk)); err != nil {
			return fmt.Errorf("adding the push receiver: %w", err)
		}
	}
	if o.enableWebhooks {
		if err := batchv1.SetupCronJobWebhookWithManager(mgr); err != nil {
			return fmt.Errorf("setting up the CronJob webhooks: %w", err)
		}
	}
	return nil
}
