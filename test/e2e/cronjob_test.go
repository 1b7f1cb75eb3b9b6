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
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestCronJobTutorialSampleOnLocalCluster runs the kubebuilder tutorial's own CronJob sample (every minute,
// startingDeadlineSeconds 60, busybox printing the date) with the manager as a host process: a Job is created
// for a scheduled minute and completes through kube-controller-manager's Job controller and kwok, and the
// history limit holds once more Jobs have run than it keeps. It runs beside other tests: the sample carries the
// test's shard label, which is all its manager watches.
func TestCronJobTutorialSampleOnLocalCluster(t *testing.T) {
	t.Parallel()
	ns := "e2e-cronjob"
	kubectl(t, "create", "namespace", ns)
	startManager(t, "cronjob", shardFlag(ns))
	apply(t, ns, `
apiVersion: batch.tutorial.kubebuilder.io/v1
kind: CronJob
metadata: {name: cronjob-sample, labels: `+shardLabels(ns)+`}
spec:
  schedule: "*/1 * * * *"
  startingDeadlineSeconds: 60
  concurrencyPolicy: Allow
  successfulJobsHistoryLimit: 2
  jobTemplate:
    spec:
      template:
        spec:
          containers:
          - name: hello
            image: busybox
            args: [/bin/sh, -c, date; echo Hello from the Kubernetes cluster]
          restartPolicy: OnFailure
`)
	jobs := func() []string {
		return strings.Fields(jsonpath("-n", ns, "get", "jobs", "-o",
			`jsonpath={range .items[*]}{.metadata.name}={.status.succeeded}{" "}{end}`))
	}
	waitFor(t, 150*time.Second, "a Job created for a scheduled minute and completed", func() (bool, string) {
		for _, j := range jobs() {
			if strings.HasSuffix(j, "=1") {
				return true, ""
			}
		}
		return false, fmt.Sprint(jobs())
	})
	last := jsonpath("-n", ns, "get", "cronjobs.batch.tutorial.kubebuilder.io", "cronjob-sample", "-o",
		"jsonpath={.status.lastScheduleTime}")
	if last == "" {
		t.Fatal("status.lastScheduleTime is empty after a Job ran")
	}

	// Two more minutes: three Jobs have run by then, one more than the history keeps, and only the two newest
	// successful ones stay.
	seen := map[string]bool{}
	waitFor(t, 4*time.Minute, "three Jobs seen over time and history pruned to 2", func() (bool, string) {
		current := jobs()
		for _, j := range current {
			seen[strings.SplitN(j, "=", 2)[0]] = true
		}
		succeeded := 0
		for _, j := range current {
			if strings.HasSuffix(j, "=1") {
				succeeded++
			}
		}
		return len(seen) >= 3 && succeeded == 2 && len(current) < len(seen),
			fmt.Sprintf("seen %d, now %v", len(seen), current)
	})
	// The pruned Jobs are the oldest: a Job's name ends in its scheduled time, so each kept one is newer.
	kept := map[string]bool{}
	for _, j := range jobs() {
		kept[strings.SplitN(j, "=", 2)[0]] = true
	}
	for gone := range seen {
		if kept[gone] {
			continue
		}
		for k := range kept {
			if scheduledSuffix(t, k) < scheduledSuffix(t, gone) {
				t.Errorf("history pruned %s but kept the older %s", gone, k)
			}
		}
	}
	t.Logf("jobs seen: %d, cronjob:\n%s", len(seen),
		kubectl(t, "-n", ns, "get", "cronjobs.batch.tutorial.kubebuilder.io", "-o", "wide"))
}

// scheduledSuffix returns the number a CronJob's Job name ends in: its scheduled time.
func scheduledSuffix(t *testing.T, job string) int64 {
	t.Helper()
	n, err := strconv.ParseInt(job[strings.LastIndex(job, "-")+1:], 10, 64)
	if err != nil {
		t.Fatalf("job %q does not end in its scheduled time: %v", job, err)
	}
	return n
}
