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
	"context"
	"fmt"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"

	batchv1 "github.com/siteops/siteops/apis/batch/v1"
	"github.com/siteops/siteops/controllers/cronjob"
)

// P8's knobs: CronJobs per side [1000] and scheduled minutes measured per side [2]. With the defaults P8
// takes about 7 minutes (cluster start, two sides of 2 minutes one after the other, a minute's gap and up
// to 90 s of settling before each), which keeps `make bench` (about 17 minutes without it) under its
// 30-minute timeout.
const (
	envSpreadCronJobs = "SITEOPS_BENCH_SPREAD_CRONJOBS"
	envSpreadMinutes  = "SITEOPS_BENCH_SPREAD_MINUTES"
)

// Namespaces of P8's two sides, and the spread of the staggered side.
const (
	nsSpreadNone = "bench-spread-none"
	nsSpread30s  = "bench-spread-30s"
	benchSpread  = 30 * time.Second
)

// spreadSide is one side's P8 figures.
type spreadSide struct {
	stats    scheduleStats
	p50, p99 time.Duration // lag from each run's own start time
	// peak is the most writes received in one second in the side's namespace, from any client but the
	// benchmark's own (siteops' Job creates, status patches and events, the Job controller's pods and Job
	// status, kwok's pod status, GC deletes); peakManager only siteops'.
	peak, peakManager     int
	peakAt, peakManagerAt time.Time
}

// BenchmarkCronJobSpread is row P8 (issue 19): N CronJobs `*/1` without spec.spread, then N CronJobs `*/1`
// with `spread: 30s`, each side for M scheduled minutes, on one local cluster (kwok runs the Jobs' pods)
// with one siteops bin/manager reconciling both; the cluster's kube-controller-manager runs the Job and GC
// controllers. The sides run one after the other, not together: together, the unspread side's burst at
// each minute would hold up the staggered CronJobs that start in the same seconds, and the staggered
// side's lag would measure the other side. When the unspread side's minutes are done its CronJobs are
// suspended and the staggered ones created (created, not unsuspended, so that none starts a missed run),
// and the staggered side is measured from the first minute at least 30 s later. Peak writes per second,
// lags, missed and duplicate runs come from the apiserver's audit log; a lag is the Job create request's
// receive time − (scheduled minute + the CronJob's stagger offset, cronjob.StartOffset, 0 without spread).
func BenchmarkCronJobSpread(b *testing.B) {
	n, minutes := envInt(b, envSpreadCronJobs, 1000), envInt(b, envSpreadMinutes, 2)
	for b.Loop() {
		none, spread := runCronJobSpread(b, n, minutes)
		recordP8(b, n, minutes, none, spread)
	}
}

// spreadWindow is the measured minutes of one side and the time its requests are counted until.
type spreadWindow struct {
	first, end time.Time // scheduled minutes [first, first+minutes)
	until      time.Time // requests received in [first, until) count
}

// runCronJobSpread runs the unspread side, then the staggered one, and returns their figures.
func runCronJobSpread(b *testing.B, n, minutes int) (none, spread spreadSide) {
	managerBinary(b) // built before the cluster starts
	bc := startBenchCluster(b, "kwok", "*,-cronjob-controller")
	createAll(b, bc.c, 2, func(i int) client.Object {
		return &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: []string{nsSpreadNone, nsSpread30s}[i]}}
	})
	spreadCronJobs(b, bc.c, nsSpreadNone, n, nil)
	mgr := bc.startClusterManager(b)

	var w [2]spreadWindow
	w[0].first = nextMeasuredMinute(time.Now())
	w[0].end = w[0].first.Add(time.Duration(minutes) * time.Minute)
	b.Logf("P8: %d CronJobs per side; without spread: the minutes %s to %s", n, w[0].first.Format("15:04"),
		w[0].end.Add(-time.Minute).Format("15:04"))
	// The last minute's Jobs have 45 s to be created before the side is suspended (a later one is missed).
	w[0].until = w[0].end.Add(-15 * time.Second)
	keepAlive(b, mgr, w[0].until)
	inParallel(b, n, "suspending", func(ctx context.Context, i int) error {
		cj := &batchv1.CronJob{ObjectMeta: metav1.ObjectMeta{Namespace: nsSpreadNone, Name: fmt.Sprintf("cj-%d", i)}}
		return bc.c.Patch(ctx, cj, client.RawPatch(types.MergePatchType, []byte(`{"spec":{"suspend":true}}`)))
	})
	spreadCronJobs(b, bc.c, nsSpread30s, n, &metav1.Duration{Duration: benchSpread})
	w[1].first = nextMeasuredMinute(time.Now())
	w[1].end = w[1].first.Add(time.Duration(minutes) * time.Minute)
	w[1].until = w[1].end.Add(-time.Second) // a Job not created by then is missed
	b.Logf("P8: with spread %s: the minutes %s to %s", benchSpread, w[1].first.Format("15:04"),
		w[1].end.Add(-time.Minute).Format("15:04"))
	keepAlive(b, mgr, w[1].until)
	mgr.stop()
	time.Sleep(3 * time.Second) // the audit log is written in batches of up to 1 s
	events, err := readAudit(bc.auditLog())
	mustDo(b, err)

	benchAgent := rest.DefaultKubernetesUserAgent() // the benchmark's own client (creates, suspends)
	out := make([]spreadSide, 2)
	for i, ns := range []string{nsSpreadNone, nsSpread30s} {
		r, win := &out[i], w[i]
		side := cronJobSide{namespace: ns, uaPrefix: managerUserAgent, offsets: startOffsets(b, bc.c, ns)}
		r.stats = scheduleStatsOf(events, side, "cj-", n, win.first, minutes, win.until)
		r.p50, r.p99 = Quantile(append([]time.Duration{}, r.stats.lags...), 0.5), Quantile(r.stats.lags, 0.99)
		r.peak, r.peakAt = peakPerSecond(events, func(e auditEvent) bool {
			return e.ObjectRef.Namespace == ns && e.UserAgent != benchAgent
		}, win.first, win.until)
		r.peakManager, r.peakManagerAt = peakPerSecond(events, side.matches, win.first, win.until)
		b.Logf("P8 %s: %d Jobs, lag p50 %s p99 %s, missed %d, duplicates %d, failed creates %d; peak %d writes/s "+
			"at %s (siteops %d at %s); siteops: %d requests (%s)", ns, r.stats.created, FormatDuration(r.p50),
			FormatDuration(r.p99), r.stats.missed, r.stats.duplicates, r.stats.failedCreates, r.peak,
			r.peakAt.Format("15:04:05"), r.peakManager, r.peakManagerAt.Format("15:04:05"), r.stats.requests,
			kinds(r.stats.requestsByKind))
	}
	return out[0], out[1]
}

// spreadCronJobs creates n CronJobs `*/1` named cj-0… in ns with the given spec.spread (nil: none) and
// otherwise P1's spec.
func spreadCronJobs(tb testing.TB, c client.Client, ns string, n int, spread *metav1.Duration) {
	tb.Helper()
	createAll(tb, c, n, func(i int) client.Object {
		return &batchv1.CronJob{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: fmt.Sprintf("cj-%d", i)},
			Spec: batchv1.CronJobSpec{Schedule: "*/1 * * * *", Spread: spread, JobTemplate: jobTemplate()}}
	})
}

// startOffsets is the stagger offset the controller gives each CronJob in ns (cronjob.StartOffset of its
// UID and spec.spread), by name.
func startOffsets(tb testing.TB, c client.Client, ns string) map[string]time.Duration {
	tb.Helper()
	var list batchv1.CronJobList
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	mustDo(tb, c.List(ctx, &list, client.InNamespace(ns)))
	out := make(map[string]time.Duration, len(list.Items))
	for i := range list.Items {
		out[list.Items[i].Name] = cronjob.StartOffset(&list.Items[i])
	}
	return out
}

// nextMeasuredMinute is the first minute boundary at least 30 s after now, so that the manager has time to
// start or to settle after a change before it is measured (as in P1).
func nextMeasuredMinute(now time.Time) time.Time {
	return now.Add(30 * time.Second).Truncate(time.Minute).Add(time.Minute)
}

// keepAlive waits until t, failing tb if the process exits meanwhile.
func keepAlive(tb testing.TB, p *hostProcess, t time.Time) {
	tb.Helper()
	for time.Now().Before(t) {
		if !p.alive() {
			tb.Fatalf("%s exited during the measurement", p.name)
		}
		time.Sleep(min(2*time.Second, max(time.Until(t), time.Millisecond)))
	}
}

// recordP8 records row P8 from both sides' figures.
func recordP8(b *testing.B, n, minutes int, none, spread spreadSide) {
	ratio := float64(spread.peak) / float64(max(none.peak, 1))
	b.ReportMetric(ratio, "peak-ratio")
	b.ReportMetric(spread.p99.Seconds(), "spread-p99-s")
	ok := none.peak > 0 && ratio <= 0.5 && spread.p99 <= time.Second &&
		none.stats.missed == 0 && none.stats.duplicates == 0 && spread.stats.missed == 0 && spread.stats.duplicates == 0
	fig := func(r spreadSide) string {
		return fmt.Sprintf("peak %d writes/s (siteops' own %d); lag p50 %s, p99 %s; missed %d, duplicates %d",
			r.peak, r.peakManager, FormatDuration(r.p50), FormatDuration(r.p99), r.stats.missed, r.stats.duplicates)
	}
	Record(Row{
		ID:      "P8",
		Siteops: fig(spread),
		Anchor:  fig(none),
		Ratio: fmt.Sprintf("peak %.3g (siteops' own %.3g)", ratio,
			float64(spread.peakManager)/float64(max(none.peakManager, 1))),
		Outcome: Judge(ok),
		N:       fmt.Sprintf("%d CronJobs `*/1` per side × %d minutes", n, minutes),
		Notes: fmt.Sprintf("anchor: the same CronJobs without spread; one local cluster, one siteops manager, "+
			"the sides one after the other (unspread first; together, the unspread burst would delay the "+
			"staggered runs of the same seconds); peak = most write requests (pods, Jobs, CronJobs, events) in "+
			"one second in the side's namespace, from every client but the benchmark's; lag = audit-log receive "+
			"time of the Job create − (scheduled minute + the CronJob's stagger offset); siteops requests with "+
			"spread: %s; without: %s",
			kinds(spread.stats.requestsByKind), kinds(none.stats.requestsByKind)),
	})
}
