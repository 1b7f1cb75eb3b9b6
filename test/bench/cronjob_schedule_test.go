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
	"sort"
	"strings"
	"testing"
	"time"

	kbatchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	batchv1 "github.com/siteops/siteops/apis/batch/v1"
)

// P1's knobs: CronJobs per side [200], CronJobs per side of the larger run, P1-1000 [1000; 0 skips it], and
// scheduled minutes measured [3].
const (
	envP1CronJobs      = "SITEOPS_BENCH_P1_CRONJOBS"
	envP1LargeCronJobs = "SITEOPS_BENCH_P1_LARGE_CRONJOBS"
	envP1Minutes       = "SITEOPS_BENCH_P1_MINUTES"
)

// Namespaces of the two sides of P1 and P7.
const (
	nsSiteops = "bench-siteops"
	nsKCM     = "bench-kcm"
)

// jobTemplate is the Job every benchmark CronJob starts: one pod that kwok runs to completion.
func jobTemplate() kbatchv1.JobTemplateSpec {
	return kbatchv1.JobTemplateSpec{Spec: kbatchv1.JobSpec{Template: corev1.PodTemplateSpec{Spec: corev1.PodSpec{
		RestartPolicy: corev1.RestartPolicyOnFailure,
		Containers:    []corev1.Container{{Name: "hello", Image: "busybox", Args: []string{"true"}}},
	}}}}
}

// cronJobSides creates n CronJobs every minute on each side: siteops' tutorial kind in nsSiteops and batch/v1 in
// nsKCM, with the same spec (schedule, no deadline, Allow, history limits 3/1).
func cronJobSides(tb testing.TB, c client.Client, n int, schedule string) {
	tb.Helper()
	createAll(tb, c, n, func(i int) client.Object {
		return &batchv1.CronJob{ObjectMeta: metav1.ObjectMeta{Namespace: nsSiteops, Name: fmt.Sprintf("cj-%d", i)},
			Spec: batchv1.CronJobSpec{Schedule: schedule, JobTemplate: jobTemplate()}}
	})
	createAll(tb, c, n, func(i int) client.Object {
		return &kbatchv1.CronJob{ObjectMeta: metav1.ObjectMeta{Namespace: nsKCM, Name: fmt.Sprintf("cj-%d", i)},
			Spec: kbatchv1.CronJobSpec{Schedule: schedule, JobTemplate: jobTemplate()}}
	})
}

func createNamespaces(tb testing.TB, c client.Client) {
	tb.Helper()
	createAll(tb, c, 2, func(i int) client.Object {
		return &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: []string{nsSiteops, nsKCM}[i]}}
	})
}

// sideResult is one side's P1 figures.
type sideResult struct {
	stats     scheduleStats
	cpu       time.Duration // CPU time over the measured minutes
	rss, hwm  int64         // largest VmRSS sampled during them, and VmHWM at the end
	p50, p99  time.Duration
	reqPerJob float64
}

// BenchmarkCronJobSchedule is rows P1 and P1-1000: N CronJobs `*/1` for each side on one local cluster (kwok
// runs the Jobs' pods; a fresh cluster for each size), siteops' bin/manager reconciling tutorial CronJobs and, at the
// same time, a kube-controller-manager running only cronjob-controller (default flags) reconciling as many batch/v1
// CronJobs; the cluster's own kube-controller-manager runs the Job, garbage-collector and other controllers for both.
// Lags, requests, missed and duplicate minutes come from the apiserver's audit log (create request receive time, µs,
// minus the minute in the Job's name); CPU and RSS from /proc over the measured minutes.
func BenchmarkCronJobSchedule(b *testing.B) {
	n, large, minutes := envInt(b, envP1CronJobs, 200), envCount(b, envP1LargeCronJobs, 1000), envInt(b, envP1Minutes, 3)
	for b.Loop() {
		siteops, anchor := runCronJobSchedule(b, n, minutes)
		recordP1(b, p1Small, n, minutes, siteops, anchor)
		if large > 0 {
			siteops, anchor = runCronJobSchedule(b, large, minutes)
			recordP1(b, p1Large, large, minutes, siteops, anchor)
		}
	}
}

// p1Size is one row of P1: its id and what it must meet.
type p1Size struct {
	id     string
	lagP99 time.Duration
	// parity asks for ≤ 3 requests per Job and CPU and RSS no higher than the anchor's as well.
	parity bool
}

var (
	p1Small = p1Size{id: "P1", lagP99: time.Second, parity: true}
	p1Large = p1Size{id: "P1-1000", lagP99: 5 * time.Second}
)

// runCronJobSchedule runs both sides and returns their figures.
func runCronJobSchedule(b *testing.B, n, minutes int) (siteops, anchor sideResult) {
	managerBinary(b) // built before the cluster starts
	bc := startBenchCluster(b, "kwok", "*,-cronjob-controller")
	createNamespaces(b, bc.c)
	cronJobSides(b, bc.c, n, "*/1 * * * *")
	mgr := bc.startClusterManager(b)
	kcm := bc.startAnchorKCM(b, "cronjob-controller")
	// Both have at least 30 s to start and sync before the first measured minute.
	first := time.Now().Add(30 * time.Second).Truncate(time.Minute).Add(time.Minute)
	end := first.Add(time.Duration(minutes) * time.Minute)
	b.Logf("P1: %d CronJobs per side; measuring the minutes %s to %s", n, first.Format("15:04"),
		end.Add(-time.Minute).Format("15:04"))
	time.Sleep(time.Until(first))
	procs := []*hostProcess{mgr, kcm}
	start := make([]procSample, 2)
	peak := make([]int64, 2)
	for i, p := range procs {
		s, err := sampleProc(p.cmd.Process.Pid)
		mustDo(b, err)
		start[i], peak[i] = s, s.rss
	}
	var last []procSample
	// Until just before the minute after the last measured one: a Job not created by then is missed.
	for deadline := end.Add(-time.Second); time.Now().Before(deadline); time.Sleep(2 * time.Second) {
		last = last[:0]
		for i, p := range procs {
			if !p.alive() {
				b.Fatalf("%s exited during the measurement", p.name)
			}
			s, err := sampleProc(p.cmd.Process.Pid)
			mustDo(b, err)
			last = append(last, s)
			peak[i] = max(peak[i], s.rss)
		}
	}
	mgr.stop()
	kcm.stop()
	time.Sleep(3 * time.Second) // the audit log is written in batches of up to 1 s
	events, err := readAudit(bc.auditLog())
	mustDo(b, err)
	sides := []cronJobSide{
		{namespace: nsSiteops, uaPrefix: managerUserAgent},
		{namespace: nsKCM, uaPrefix: "kube-controller-manager/", uaSuffix: "/cronjob-controller"},
	}
	out := make([]sideResult, 2)
	for i, side := range sides {
		r := &out[i]
		r.stats = scheduleStatsOf(events, side, "cj-", n, first, minutes, end)
		r.cpu, r.rss, r.hwm = last[i].cpu-start[i].cpu, peak[i], last[i].hwm
		r.p50, r.p99 = Quantile(append([]time.Duration{}, r.stats.lags...), 0.5), Quantile(r.stats.lags, 0.99)
		r.reqPerJob = r.stats.perJob()
		b.Logf("P1 %s: %d Jobs, lag p50 %s p99 %s, missed %d, duplicates %d, failed creates %d, %d requests (%s), "+
			"CPU %s, RSS %s (peak %s)", []string{"siteops", "anchor"}[i], r.stats.created, FormatDuration(r.p50),
			FormatDuration(r.p99), r.stats.missed, r.stats.duplicates, r.stats.failedCreates, r.stats.requests,
			kinds(r.stats.requestsByKind), FormatDuration(r.cpu), formatMiB(r.rss), formatMiB(r.hwm))
	}
	return out[0], out[1]
}

// kinds lists request counts by kind, sorted.
func kinds(m map[string]int) string {
	var parts []string
	for k, v := range m {
		parts = append(parts, fmt.Sprintf("%s %d", k, v))
	}
	sort.Strings(parts)
	return strings.Join(parts, ", ")
}

// recordP1 records row size.id from both sides' figures.
func recordP1(b *testing.B, size p1Size, n, minutes int, s, a sideResult) {
	b.ReportMetric(s.p99.Seconds(), size.id+"-siteops-p99-s")
	b.ReportMetric(a.p99.Seconds(), size.id+"-anchor-p99-s")
	cpuRatio := s.cpu.Seconds() / max(a.cpu.Seconds(), 1e-9)
	rssRatio := float64(s.rss) / float64(max(a.rss, 1))
	ok := s.p99 <= size.lagP99 && s.stats.missed == 0 && s.stats.duplicates == 0 &&
		(!size.parity || s.reqPerJob <= 3 && cpuRatio <= 1 && rssRatio <= 1)
	fig := func(r sideResult) string {
		return fmt.Sprintf("lag p50 %s, p99 %s; %.2g requests/Job; CPU %s; RSS %s; missed %d, duplicates %d",
			FormatDuration(r.p50), FormatDuration(r.p99), r.reqPerJob, FormatDuration(r.cpu), formatMiB(r.rss),
			r.stats.missed, r.stats.duplicates)
	}
	Record(Row{
		ID:      size.id,
		Siteops: fig(s),
		Anchor:  fig(a),
		Ratio: fmt.Sprintf("p99 %.3g, CPU %.3g, RSS %.3g, requests/Job %.3g", s.p99.Seconds()/max(a.p99.Seconds(), 1e-9),
			cpuRatio, rssRatio, s.reqPerJob/max(a.reqPerJob, 1e-9)),
		Outcome: Judge(ok),
		N:       fmt.Sprintf("%d CronJobs `*/1` per side × %d minutes", n, minutes),
		Notes: fmt.Sprintf("both sides at the same time on one local cluster (kwok runs the pods; the cluster's "+
			"kube-controller-manager runs the Job and GC controllers for both); anchor: kube-controller-manager "+
			"v1.37.2 with only cronjob-controller, default flags (QPS 20); lag = audit-log receive time of the Job "+
			"create − scheduled minute; requests = the controller's writes (Jobs, CronJob status, events) in the "+
			"window; CPU = user+system over the window, RSS = largest VmRSS sampled every 2 s; siteops requests: %s; "+
			"anchor requests: %s", kinds(s.stats.requestsByKind), kinds(a.stats.requestsByKind)),
	})
}
