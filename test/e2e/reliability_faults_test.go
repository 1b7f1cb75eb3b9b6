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
	"math/rand/v2"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/siteops/siteops/test/managerproc"
)

const (
	faultCronJobs   = 200
	faultGuestbooks = 4
	faultKills      = 20
	// faultDeadline is the CronJobs' startingDeadlineSeconds: long enough that a minute due while the manager
	// or the apiserver was down is still started when it is back, on a loaded machine too.
	faultDeadline = 600
)

// TestFaultsLoseNoCronJobRunAndNeverMakeTwoActivePods is issue 8's R3 on the local cluster, with 200 CronJobs
// scheduling every minute and 4 Guestbooks of 3 pods failing over:
//  1. the manager is SIGKILLed 20 times, each time a moment after its first API write (in the middle of the
//     reconciles of its start and of the failover the test causes each round), the kills spanning a schedule
//     minute;
//  2. the manager started after the kills catches up, and kube-apiserver is SIGKILLed just as it starts the
//     next minute's Jobs, stays down 15 s and is started again. Every CronJob gets back on schedule.
//
// Over every minute since each CronJob was created: 0 duplicate Jobs, and every minute without a Job has a
// later Job of its CronJob. Like Kubernetes, siteops runs only the most recent of several due times, so a
// CronJob the manager reaches only after the next minute is due runs that one and skips the other (recorded
// in status.lastMissedTime, unless the manager died before its status patch); the test logs how many.
//
// An informer looks at every pod event of the whole test: no Guestbook ever had two live active pods.
//
// It runs beside the other tests, on a cluster of its own (etcd is the fleet's): it kills that cluster's
// kube-apiserver, and its managers run without leader election over every object in the cluster.
func TestFaultsLoseNoCronJobRunAndNeverMakeTwoActivePods(t *testing.T) {
	t.Parallel()
	ns := "e2e-faults"
	k := ownCluster(t, "faults")
	managerBinary(t) // built before the CronJobs exist, so no minute passes without a manager
	k.kubectl(t, "create", "namespace", ns)
	watch := watchActivePods(t, k, ns)
	var gbs strings.Builder
	gbs.WriteString("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: gbconfig}\ndata: {title: faults}\n")
	for i := 0; i < faultGuestbooks; i++ {
		fmt.Fprintf(&gbs, "---\napiVersion: webapp.my.domain/v1\nkind: Guestbook\nmetadata: {name: gb-%d}\n"+
			"spec: {size: 3, configMapName: gbconfig, alias: Address}\n", i)
	}
	if _, err := k.tryIn(gbs.String(), "-n", ns, "apply", "-f", "-"); err != nil {
		t.Fatalf("creating the Guestbooks: %v", err)
	}
	onCluster := "--kubeconfig=" + k.kubeconfig
	first := startManager(t, "before-kills", onCluster, "--leader-elect=false")
	for i := 0; i < faultGuestbooks; i++ {
		waitForActive(t, k, ns, fmt.Sprintf("gb-%d", i), 3, "")
	}
	if _, err := k.tryIn(cronJobsYAML("cj", faultCronJobs, faultDeadline), "-n", ns, "create", "-f", "-"); err != nil {
		t.Fatalf("creating the CronJobs: %v", err)
	}

	// Phase 1: kill the manager 20 times, and at least until a schedule minute has passed 10 s ago.
	boundary1 := nextMinute(time.Now())
	first.Stop(syscall.SIGKILL)
	kills, failovers := 0, 0
	for kills < faultKills || time.Now().Before(boundary1.Add(10*time.Second)) {
		m := startManager(t, fmt.Sprintf("kill-%d", kills), onCluster, "--leader-elect=false", "--zap-log-level=1")
		if watch.deleteActive(t.Context(), fmt.Sprintf("gb-%d", kills%faultGuestbooks)) {
			failovers++ // a failover to reconcile
		}
		waitFor(t, 60*time.Second, "the manager's first write", func() (bool, string) {
			return managerproc.WriteSpanOf(m.Logs()).Count > 0, ""
		})
		time.Sleep(time.Duration(rand.IntN(1500)) * time.Millisecond)
		m.Stop(syscall.SIGKILL)
		kills++
	}
	killsEnd := time.Now()
	t.Logf("phase 1: manager SIGKILLed %d times after its first write, %d active pods deleted, minute %s inside the kills",
		kills, failovers, boundary1.UTC().Format("15:04"))

	// Phase 2: the manager started after the kills catches up, and kube-apiserver is SIGKILLed as it starts
	// the next minute's Jobs.
	final := startManager(t, "after-kills", onCluster, "--leader-elect=false")
	settled := nextMinute(killsEnd)
	suffix := fmt.Sprintf("-%d\n", settled.Unix()/60)
	jobNames := func() string { return k.jsonpath("-n", ns, "get", "jobs", "-o", "name") + "\n" }
	waitFor(t, 2*time.Minute, "the first Job for "+settled.UTC().Format("15:04"), func() (bool, string) {
		return strings.Contains(jobNames(), suffix), ""
	})
	created := strings.Count(jobNames(), suffix)
	localCluster(t, "restart-site-apiserver", "faults", "15")
	t.Logf("phase 2: kube-apiserver SIGKILLed with %d of %d Jobs for %s created, down 15 s, back",
		created, faultCronJobs, settled.UTC().Format("15:04"))

	// Back on schedule: every CronJob has a Job for a minute after the apiserver came back.
	resumed := nextMinute(time.Now())
	var l jobLedger
	waitFor(t, 3*time.Minute, "every CronJob back on schedule from "+resumed.UTC().Format("15:04"), func() (bool, string) {
		l = readLedger(t, k, ns)
		behind := l.behind(resumed)
		return len(behind) == 0, fmt.Sprintf("%d CronJobs without a Job since %s, e.g. %v", len(behind),
			resumed.UTC().Format("15:04"), behind[:min(len(behind), 5)])
	})
	_, missedAtKill, _, _ := l.check(settled, settled)
	due, _, dup, detail := l.check(time.Time{}, resumed)
	recorded, unrecorded, trailing := l.collapsed(resumed)
	t.Logf("minute %s (apiserver killed): %d of %d started, %d skipped for the next minute, which was due before "+
		"the manager got to them", settled.UTC().Format("15:04"), faultCronJobs-missedAtKill, faultCronJobs, missedAtKill)
	t.Logf("whole test up to %s: %d Jobs for %d due runs: %d duplicated, %d skipped for a later run (%d in "+
		"status.lastMissedTime, %d not: the manager was killed before its status patch), %d with no later run %v",
		resumed.UTC().Format("15:04"), l.jobs, due, dup, recorded+unrecorded, recorded, unrecorded, len(trailing), trailing)
	if dup != 0 || len(trailing) != 0 {
		t.Fatalf("%d duplicated, runs with no later run %v: %v", dup, trailing, detail)
	}

	for i := 0; i < faultGuestbooks; i++ {
		waitForActive(t, k, ns, fmt.Sprintf("gb-%d", i), 3, "")
	}
	events, violations := watch.result()
	t.Logf("Guestbooks: %d pod events watched, %d states with two live active pods", events, len(violations))
	if len(violations) > 0 {
		t.Fatalf("two active pods: %v", violations)
	}
	u := usageOf(final.Pid())
	t.Logf("manager after the kills: peak RSS %.0f MiB, CPU %s", u.peakRSSMiB, u.cpu.Round(10*time.Millisecond))
}
