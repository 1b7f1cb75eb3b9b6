//go:build e2e

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

package e2e

import (
	"fmt"
	"io"
	"net/http"
	"os"
	"strconv"
	"testing"
	"time"
)

// loadSize reads an integer from the environment, or returns def.
func loadSize(t *testing.T, name string, def int) int {
	t.Helper()
	v := os.Getenv(name)
	if v == "" {
		return def
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 1 {
		t.Fatalf("%s=%q: want a positive integer", name, v)
	}
	return n
}

// cheapLedgerJobs is the most Jobs whose ledger the load test reads while runs may still start.
const cheapLedgerJobs = 1000

// TestCronJobLoad is issue 8's R4: N CronJobs `*/1` (startingDeadlineSeconds 60) for M schedule minutes with
// one manager on the local cluster: every CronJob has exactly one Job for every minute (0 duplicates, 0 missed
// inside the deadline). It logs the schedule lag (Job creationTimestamp minus scheduled time) and the manager's
// peak RSS and CPU time. `make test` runs the smoke size, 50 CronJobs for 1 minute; `make test-load` sets
// SITEOPS_LOAD_CRONJOBS=4000 SITEOPS_LOAD_MINUTES=10. With SITEOPS_LOAD_CPUPROFILE=FILE the manager serves
// pprof on loopback and FILE gets its CPU profile over the measured minutes.
//
// It runs alone (no t.Parallel): it reports the CPU of the machine and of the cluster's processes for one
// manager's load, and a schedule minute the other tests' load delays would count as missed.
func TestCronJobLoad(t *testing.T) {
	n := loadSize(t, "SITEOPS_LOAD_CRONJOBS", 50)
	minutes := loadSize(t, "SITEOPS_LOAD_MINUTES", 1)
	const deadline = 60
	ns := "e2e-load"
	scheduleNamespace(t, ns)
	profile := os.Getenv("SITEOPS_LOAD_CPUPROFILE")
	var extra []string
	var pprofPort int
	if profile != "" {
		pprofPort = freePort(t)
		extra = append(extra, fmt.Sprintf("--pprof-bind-address=127.0.0.1:%d", pprofPort))
	}
	m := startManager(t, "load", extra...)
	waitFor(t, 60*time.Second, "manager ready", func() (bool, string) { return m.Ready(), "" })
	// create, not apply: one request per object.
	if _, err := tryKubectlIn(cronJobsYAML("load", n, deadline), "-n", ns, "create", "-f", "-"); err != nil {
		t.Fatalf("creating %d CronJobs: %v", n, err)
	}
	created := time.Now()
	before := usageOf(m.Pid())
	pids := clusterPids(t)
	pids["manager"] = m.Pid()
	cpuFrom := sampleCPU(t, pids)
	last := nextMinute(created).Add(time.Duration(minutes-1) * time.Minute)
	t.Logf("%d CronJobs created; watching the minutes up to %s", n, last.UTC().Format("15:04"))
	profiled := make(chan error, 1)
	if profile != "" {
		go func() { profiled <- cpuProfile(pprofPort, time.Until(last)+30*time.Second, profile) }()
	} else {
		profiled <- nil
	}

	// The last minute's runs may start until its deadline has passed; only then is a run that has no Job
	// missed for good. Reading the ledger lists every Job: at the load size (about 60,000 Jobs) that keeps
	// the apiserver busy for seconds, so it is read only once the deadline has passed; a small ledger is
	// read from the last minute on. Poll without failing, so the figures below are logged for a run that
	// falls behind too.
	from, every := last, 2*time.Second
	if n*(minutes+1) > cheapLedgerJobs {
		from, every = last.Add((deadline+5)*time.Second), 10*time.Second
	}
	time.Sleep(time.Until(from))
	cpuTo := sampleCPU(t, pids)
	var l jobLedger
	for end := from.Add((deadline + 60) * time.Second); ; time.Sleep(every) {
		l = readLedger(t, hub(), ns)
		if _, missed, _, _ := l.check(time.Time{}, last); missed == 0 || time.Now().After(end) {
			break
		}
	}
	after := usageOf(m.Pid())
	wall := time.Since(created)
	if err := <-profiled; err != nil {
		t.Errorf("CPU profile: %v", err)
	} else if profile != "" {
		t.Logf("manager CPU profile over the measured minutes: %s (go tool pprof -top %s)", profile, profile)
	}

	expected, missed, dup, detail := l.check(time.Time{}, last)
	t.Logf("load: %d CronJobs x %d minute(s): %d runs due, %d Jobs, %d missed, %d duplicated %v",
		n, minutes, expected, l.jobs, missed, dup, detail)
	if missed > 0 {
		first, lastCreated := l.createdSpan()
		t.Logf("missed by scheduled minute: %s (the CronJobs were created from %s to %s)", l.missedByMinute(last),
			first.UTC().Format("15:04:05"), lastCreated.UTC().Format("15:04:05"))
	}
	t.Logf("schedule lag (creationTimestamp - scheduled time): p50 %.0f s, p99 %.0f s, max %.0f s over %d Jobs",
		percentile(l.lags, 50), percentile(l.lags, 99), percentile(l.lags, 100), len(l.lags))
	if len(l.late) > 0 {
		t.Logf("created more than 20 s late: %d, first ones %v", len(l.late), l.late[:min(len(l.late), 10)])
	}
	inWindow := l.createdBetween(cpuFrom.at, cpuTo.at)
	t.Logf("CPU from the CronJobs' creation until the ledger was first read (%s, %d Jobs created): %s",
		cpuTo.at.Sub(cpuFrom.at).Round(time.Second), inWindow, cpuBetween(cpuFrom, cpuTo, []string{"kube-apiserver",
			"etcd", "kube-controller-manager", "manager", "kube-scheduler", "kwok"}, inWindow))
	if busy := cpuTo.busy - cpuFrom.busy; busy > 0 {
		share := (cpuTo.procs["manager"] - cpuFrom.procs["manager"]).Seconds() / busy.Seconds()
		t.Logf("the manager's share of the machine's busy CPU in that window: %.1f %%", 100*share)
	}
	if share, ok := procShare(cpuFrom, cpuTo, "manager"); ok {
		t.Logf("the manager's share of the CPU per Job (of the cluster's processes and the manager): %.1f %% "+
			"(R4's target: ≤ 15 %%)", 100*share)
	}
	cpu := after.cpu - before.cpu
	t.Logf("manager: peak RSS %.0f MiB, CPU %s over %s wall (%.2f cores)", after.peakRSSMiB,
		cpu.Round(10*time.Millisecond), wall.Round(time.Second), cpu.Seconds()/wall.Seconds())
	if missed != 0 || dup != 0 {
		t.Fatalf("%d missed, %d duplicated: %v", missed, dup, detail)
	}
	// Every CronJob exists before the first watched minute; one created at the start of the test's create
	// (which takes minutes at the load size) is also due every minute from then on.
	first, _ := l.createdSpan()
	most := n * int(last.Sub(first.Truncate(time.Minute))/time.Minute)
	if expected < n*minutes || expected > most {
		t.Fatalf("%d runs due, want %d to %d: the window is not the minutes the test meant", expected, n*minutes, most)
	}
}

// cpuProfile writes the CPU profile the process serving pprof on 127.0.0.1:port takes over d to file.
func cpuProfile(port int, d time.Duration, file string) error {
	resp, err := http.Get(fmt.Sprintf("http://127.0.0.1:%d/debug/pprof/profile?seconds=%d", port, int(d.Seconds())))
	if err != nil {
		return err
	}
	defer func() { _ = resp.Body.Close() }()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("GET /debug/pprof/profile: %s", resp.Status)
	}
	f, err := os.Create(file)
	if err != nil {
		return err
	}
	if _, err := io.Copy(f, resp.Body); err != nil {
		_ = f.Close()
		return fmt.Errorf("writing %s: %w", file, err)
	}
	return f.Close()
}
