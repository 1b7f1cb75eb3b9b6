package e2e

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

// TestCronJobTutorialSampleOnLocalCluster runs the kubebuilder tutorial's own CronJob sample (every minute,
// startingDeadlineSeconds 60, busybox printing the date) with the manager as a host process: a Job is created
// for a scheduled minute and completes through kube-controller-manager's Job controller and kwok, and the
// history limit holds once more Jobs have run than it keeps.
func TestCronJobTutorialSampleOnLocalCluster(t *testing.T) {
	ns := "e2e-cronjob"
	kubectl(t, "create", "namespace", ns)
	startManager(t, "cronjob")
	apply(t, ns, `
apiVersion: batch.tutorial.kubebuilder.io/v1
kind: CronJob
metadata: {name: cronjob-sample}
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
	last := jsonpath("-n", ns, "get", "cronjobs.batch.tutorial.kubebuilder.io", "cronjob-sample", "-o", "jsonpath={.status.lastScheduleTime}")
	if last == "" {
		t.Fatal("status.lastScheduleTime is empty after a Job ran")
	}

	// Three more minutes: at least four Jobs have run by then, and only the two newest successful ones stay.
	seen := map[string]bool{}
	waitFor(t, 5*time.Minute, "four Jobs seen over time and history pruned to 2", func() (bool, string) {
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
		return len(seen) >= 4 && succeeded == 2 && len(current) <= 3, fmt.Sprintf("seen %d, now %v", len(seen), current)
	})
	t.Logf("jobs seen: %d, cronjob:\n%s", len(seen), kubectl(t, "-n", ns, "get", "cronjobs.batch.tutorial.kubebuilder.io", "-o", "wide"))
}
