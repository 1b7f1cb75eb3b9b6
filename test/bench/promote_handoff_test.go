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

package bench

import (
	"fmt"
	"testing"
	"time"

	"github.com/siteops/siteops/test/managerproc"
)

// envHandoffs is the number of promotes of P6's siteops side [20].
const envHandoffs = "SITEOPS_BENCH_HANDOFFS"

// envHandoffAnchors is the number of promotes of each of P6's anchor sides [10]: each takes longer, the
// scale-down delay and, for controller-runtime's defaults, the lease's expiry.
const envHandoffAnchors = "SITEOPS_BENCH_HANDOFF_ANCHORS"

// envHandoffLogs, when set, is a folder where each promote's old and new manager logs and its promote time
// are kept, to study a hand-off line by line.
const envHandoffLogs = "SITEOPS_BENCH_HANDOFF_LOGS"

// The sides of P6, as the managers elect.
var (
	// promoteSiteops is the manager as deployed: its own elector follows the active Service (the harness gives
	// --active-service and --pod-template-hash), so leadership moves at promote.
	promoteSiteops = promoteSetup{name: "siteops", ns: "bench-p6-siteops"}
	// promoteScaleDown is the scale-down hand-off: client-go's elector with ReleaseOnCancel and the flags'
	// retry period; leadership moves once the old pod is scaled down and its manager releases the lease.
	promoteScaleDown = promoteSetup{name: "scale-down hand-off", ns: "bench-p6-scaledown",
		flags: []string{"--leader-elector=controller-runtime", "--active-service="}}
	// promoteDefaults is client-go's elector with controller-runtime's defaults (lease 15 s, renew 10 s, retry
	// 2 s) without ReleaseOnCancel: the new colour takes the lease once the scaled-down manager's lease expires.
	promoteDefaults = promoteSetup{name: "controller-runtime defaults", ns: "bench-p6-defaults",
		flags: []string{"--leader-elector=controller-runtime", "--active-service=", "--leader-elect-release-on-cancel=false",
			"--leader-elect-lease-duration=15s", "--leader-elect-renew-deadline=10s", "--leader-elect-retry-period=2s"}}
)

// side runs n promotes of setup in a namespace of its own, under churn, and returns them with the write span
// of every manager process that ran, once all have exited.
func (f *promoteFixture) side(tb testing.TB, setup promoteSetup, n int) promoteSide {
	tb.Helper()
	f.round++
	setup.ns = fmt.Sprintf("%s-%d", setup.ns, f.round)
	stopChurn := f.churn()
	defer stopChurn()
	start := time.Now()
	h := f.startSide(tb, setup)
	side := promoteSide{name: setup.name}
	for i := 1; i <= n; i++ {
		side.samples = append(side.samples, f.promote(tb, h, setup, i))
	}
	stopChurn()
	h.Stop()
	for _, p := range h.Processes() {
		side.spans = append(side.spans, managerproc.WriteSpanOf(p.Logs()))
	}
	_, _ = f.kubectl("", "-n", setup.ns, "delete", "rollout", "manager", "--wait=false")
	fmt.Printf("P6 %s: %d promotes in %s: %s; %d intervals with two writers over %d processes\n", setup.name, n,
		time.Since(start).Round(time.Second), side.summary(), side.twoWriters(), len(side.spans))
	time.Sleep(2 * time.Second) // the audit log is written in batches of up to 1 s
	if events, err := readAudit(f.bc.auditLog()); err == nil {
		side.serviceSwitches(events, setup.ns, "manager-active")
	}
	if ph := side.phases(); ph != "" {
		fmt.Printf("P6 %s: %s\n", setup.name, ph)
	}
	return side
}

// BenchmarkLeadershipHandoff is row P6: on the local cluster with Argo Rollouts, the manager is a blue/green
// Rollout whose pods are real bin/manager processes (test/podproc); each sample changes the pod template,
// waits for the Rollout to pause with the new colour Ready in standby mode, runs `kubectl argo rollouts
// promote`, and measures promote returned → the new colour's first write, and the old colour's last write →
// the new colour's first (the processes' "api write" log lines), while a Guestbook changes every 50 ms. Sides
// in the same run: siteops' elector (SITEOPS_BENCH_HANDOFFS promotes, default 20), and as anchors
// (SITEOPS_BENCH_HANDOFF_ANCHORS each, default 10) client-go's elector with ReleaseOnCancel, where leadership
// moves at the old colour's scale-down, and with controller-runtime's defaults. Every pair of processes whose
// write spans overlap counts as an interval with two writers; any on the siteops side fails the benchmark.
func BenchmarkLeadershipHandoff(b *testing.B) {
	n, anchors := envInt(b, envHandoffs, 20), envInt(b, envHandoffAnchors, 10)
	f := newPromoteFixture(b)
	var ours, scaleDown, defaults promoteSide
	for b.Loop() {
		ours = f.side(b, promoteSiteops, n)
		scaleDown = f.side(b, promoteScaleDown, anchors)
		defaults = f.side(b, promoteDefaults, anchors)
	}
	a50, a99 := quantiles(ours.toFirstWrites())
	_, g99 := quantiles(ours.gaps())
	_, s99 := quantiles(scaleDown.toFirstWrites())
	_, d99 := quantiles(defaults.toFirstWrites())
	b.ReportMetric(a50.Seconds()*1000, "p50-ms")
	b.ReportMetric(a99.Seconds()*1000, "p99-ms")
	b.ReportMetric(g99.Seconds()*1000, "gap-p99-ms")
	b.ReportMetric(s99.Seconds()*1000, "scaledown-p99-ms")
	b.ReportMetric(d99.Seconds()*1000, "defaults-p99-ms")
	b.ReportMetric(float64(ours.twoWriters()), "two-writers")
	Record(Row{
		ID:      "P6",
		Siteops: ours.summary(),
		Anchor:  "scale-down hand-off: " + scaleDown.summary() + "; controller-runtime defaults: " + defaults.summary(),
		Ratio: "promote → first write p99: " + FormatSpeedup(a99, s99) + " vs scale-down; " +
			FormatSpeedup(a99, d99) + " vs defaults",
		Outcome: Judge(len(ours.samples) > 0 && a99 < 250*time.Millisecond && g99 < 250*time.Millisecond &&
			ours.twoWriters() == 0),
		N: fmt.Sprintf("promotes: siteops %d, scale-down %d, defaults %d; intervals with two writers: siteops %d, "+
			"scale-down %d, defaults %d", len(ours.samples), len(scaleDown.samples), len(defaults.samples),
			ours.twoWriters(), scaleDown.twoWriters(), defaults.twoWriters()),
	})
	if w := ours.twoWriters(); w > 0 {
		b.Errorf("siteops: %d intervals with two writers", w)
	}
}
