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
	"k8s.io/client-go/tools/events"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/siteops/siteops/internal/leadership"
	"github.com/siteops/siteops/internal/standby"
)

// writeClients are the clients the reconcilers get: the leader's, which records and persists its writes while
// the manager leads and refuses them otherwise; the standby's, which records them and sends them as dry runs;
// and fenced, the manager's client with only the fence, for the push receiver.
type writeClients struct {
	leader, standby, fenced     client.Client
	leaderReport, standbyReport *standby.Report
	discard                     events.EventRecorder
}

// newWriteClients wraps the manager's client for the leader, behind fence, and for standby mode. The fence is
// outermost: a refused write is not recorded, as it never reaches the apiserver.
func newWriteClients(mgr ctrl.Manager, fence *leadership.Fence, m *standby.Metrics) writeClients {
	log := mgr.GetLogger().WithName("writes")
	lr := &standby.Report{Log: log, Metrics: m}
	sr := &standby.Report{Log: log, Metrics: m}
	return writeClients{
		leader:        leadership.NewClient(standby.NewWriteRecorder(mgr.GetClient(), lr, false), fence),
		standby:       standby.NewWriteRecorder(mgr.GetClient(), sr, true),
		fenced:        leadership.NewClient(mgr.GetClient(), fence),
		leaderReport:  lr,
		standbyReport: sr,
		discard:       &events.FakeRecorder{},
	}
}
