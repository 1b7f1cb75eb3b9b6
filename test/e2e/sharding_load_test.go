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
	"os"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestShardedCronJobLoad is issue 18's sharding demonstration, run by `make test-shard-load` only (it skips
// unless SITEOPS_SHARD_LOAD_CRONJOBS is set): N CronJobs `*/1`, half in each of two shards, for
// SITEOPS_LOAD_MINUTES schedule minutes on the local cluster, first with one manager that watches every object
// (--watch-label-selector=), then, on a fresh namespace and fresh shard keys, with one manager per shard. Each
// run must have every CronJob run exactly once a minute (no CronJob run by two managers, none missed); the test
// logs each manager's peak RSS and CPU, and fails when a shard's manager peaks as high as the unsharded one.
// Then one shard's manager is killed: at the next minute only its shard waits, and a manager started again for
// it runs that minute late, within the CronJobs' startingDeadlineSeconds.
//
// It runs alone (no t.Parallel): it compares the managers' memory and CPU, and its unsharded manager watches
// every object in the cluster.
func TestShardedCronJobLoad(t *testing.T) {
	if os.Getenv("SITEOPS_SHARD_LOAD_CRONJOBS") == "" {
		t.Skip("SITEOPS_SHARD_LOAD_CRONJOBS is unset: run `make test-shard-load`")
	}
	n := loadSize(t, "SITEOPS_SHARD_LOAD_CRONJOBS", 1000)
	minutes := loadSize(t, "SITEOPS_LOAD_MINUTES", 3)

	one := shardedLoadRun(t, "e2e-shard-load-a", n, minutes,
		map[string]string{"unsharded": "--watch-label-selector="}, "a1", "a2", "")
	two := shardedLoadRun(t, "e2e-shard-load-b", n, minutes, map[string]string{
		"shard b1": "--watch-label-selector=sharding.fluxcd.io/key in (b1)",
		"shard b2": "--watch-label-selector=sharding.fluxcd.io/key in (b2)",
	}, "b1", "b2", "shard b2")
	whole := one["unsharded"]
	for name, u := range two {
		t.Logf("%s: peak RSS %.0f MiB = %.2f of the unsharded manager's %.0f MiB",
			name, u.peakRSSMiB, u.peakRSSMiB/whole.peakRSSMiB, whole.peakRSSMiB)
		if u.peakRSSMiB >= whole.peakRSSMiB {
			t.Errorf("%s peaks at %.0f MiB, no lower than the unsharded manager's %.0f MiB",
				name, u.peakRSSMiB, whole.peakRSSMiB)
		}
	}
}

// shardedLoadRun creates n CronJobs in namespace ns, the first half labelled for shard a and the rest for
// shard b, runs one manager per entry of managers (name: its --watch-label-selector) for the given schedule
// minutes, checks that every CronJob ran exactly once a minute, stops the managers and returns their usage.
// With kill naming the manager of shard b, it then shows that shard's outage (shardOutage) before stopping.
func shardedLoadRun(
	t *testing.T, ns string, n, minutes int, managers map[string]string, a, b, kill string,
) map[string]processUsage {
	t.Helper()
	const deadline = 60
	scheduleNamespace(t, ns)
	procs := map[string]*manager{}
	for name, selector := range managers {
		m := startManager(t, strings.ReplaceAll(name, " ", "-"), selector)
		waitFor(t, 60*time.Second, name+" ready", func() (bool, string) { return m.Ready(), "" })
		procs[name] = m
	}
	yaml := shardedCronJobsYAML(t, "a", n/2, deadline, a) + shardedCronJobsYAML(t, "b", n-n/2, deadline, b)
	if _, err := tryKubectlIn(yaml, "-n", ns, "create", "-f", "-"); err != nil {
		t.Fatalf("creating %d CronJobs: %v", n, err)
	}
	created := time.Now()
	last := nextMinute(created).Add(time.Duration(minutes-1) * time.Minute)
	t.Logf("%s: %d CronJobs over shards %s and %s, managers %v; watching the minutes up to %s",
		ns, n, a, b, managers, last.UTC().Format("15:04"))
	time.Sleep(time.Until(last))
	var l jobLedger
	for end := time.Now().Add((deadline + 60) * time.Second); ; time.Sleep(2 * time.Second) {
		l = readLedger(t, hub(), ns)
		if _, missed, _, _ := l.check(time.Time{}, last); missed == 0 || time.Now().After(end) {
			break
		}
	}
	wall := time.Since(created)
	usage := map[string]processUsage{}
	for name, m := range procs {
		u := usageOf(m.Pid())
		usage[name] = u
		t.Logf("%s: peak RSS %.0f MiB, CPU %s over %s wall",
			name, u.peakRSSMiB, u.cpu.Round(10*time.Millisecond), wall.Round(time.Second))
	}
	expected, missed, dup, detail := l.check(time.Time{}, last)
	t.Logf("%s: %d runs due, %d Jobs, %d missed, %d duplicated", ns, expected, l.jobs, missed, dup)
	t.Logf("%s: Leases in siteops-system:\n%s", ns, kubectl(t, "-n", "siteops-system", "get", "leases"))
	if missed != 0 || dup != 0 {
		t.Fatalf("%s: %d missed, %d duplicated: %v", ns, missed, dup, detail)
	}
	if kill != "" {
		shardOutage(t, ns, procs, kill, managers[kill], "b")
	}
	for _, m := range procs {
		m.Stop(syscall.SIGTERM)
	}
	return usage
}

// shardOutage SIGKILLs the manager procs[name] (run with selector) and shows that only its shard waits: at the
// next scheduled minute every CronJob of the other shard gets its Job and none of the CronJobs named
// prefix-<i> (its shard) does. A manager started again for the shard then runs that minute, late but within
// the CronJobs' startingDeadlineSeconds, and replaces procs[name].
func shardOutage(t *testing.T, ns string, procs map[string]*manager, name, selector, prefix string) {
	t.Helper()
	procs[name].Stop(syscall.SIGKILL)
	due := nextMinute(time.Now())
	t.Logf("%s: %s killed (SIGKILL); watching %s", ns, name, due.UTC().Format("15:04"))
	time.Sleep(time.Until(due.Add(20 * time.Second)))
	l := readLedger(t, hub(), ns)
	var own, other []string
	for _, cj := range l.behind(due) {
		if strings.HasPrefix(cj, prefix+"-") {
			own = append(own, cj)
		} else {
			other = append(other, cj)
		}
	}
	shard := 0
	for cj := range l.created {
		if strings.HasPrefix(cj, prefix+"-") {
			shard++
		}
	}
	t.Logf("%s: 20 s after %s with %s down: %d of %d CronJobs of its shard wait, %d of the other shard's",
		ns, due.UTC().Format("15:04"), name, len(own), shard, len(other))
	if len(other) != 0 {
		t.Fatalf("%s: the other shard's CronJobs waited for %s while %s was down: %v",
			ns, due.UTC().Format("15:04"), name, other[:min(10, len(other))])
	}
	if len(own) != shard {
		t.Fatalf("%s: %d of the %d CronJobs of %s's shard ran at %s with their manager down",
			ns, shard-len(own), shard, name, due.UTC().Format("15:04"))
	}
	again := startManager(t, strings.ReplaceAll(name, " ", "-")+"-again", selector)
	procs[name] = again
	waitFor(t, 40*time.Second, name+"'s shard runs "+due.UTC().Format("15:04")+
		" once its manager is back", func() (bool, string) {
		behind := readLedger(t, hub(), ns).behind(due)
		return len(behind) == 0, fmt.Sprintf("%d CronJobs behind", len(behind))
	})
	t.Logf("%s: a new manager for %s ran its shard's %s Jobs late, within startingDeadlineSeconds",
		ns, name, due.UTC().Format("15:04"))
}

// shardedCronJobsYAML is cronJobsYAML with every CronJob labelled sharding.fluxcd.io/key=shard.
func shardedCronJobsYAML(t *testing.T, prefix string, n, deadline int, shard string) string {
	t.Helper()
	plain := cronJobsYAML(prefix, n, deadline)
	from := "metadata: {name: "
	if got := strings.Count(plain, from); got != n {
		t.Fatalf("cronJobsYAML wrote %d metadata lines for %d CronJobs", got, n)
	}
	return strings.ReplaceAll(plain, from, fmt.Sprintf("metadata: {labels: {sharding.fluxcd.io/key: %s}, name: ", shard))
}
