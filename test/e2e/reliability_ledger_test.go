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
	"iter"
	"maps"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/siteops/siteops/test/procstat"
)

// cronJobsYAML returns n CronJobs named <prefix>-<i>, every minute, with the given startingDeadlineSeconds.
// Their Jobs are created suspended: kube-controller-manager starts no pod for them, so the test measures the
// CronJob controller alone, and a suspended Job stays active, so history pruning never deletes the evidence.
func cronJobsYAML(prefix string, n int, deadline int) string {
	var b strings.Builder
	for i := 0; i < n; i++ {
		fmt.Fprintf(&b, `---
apiVersion: batch.tutorial.kubebuilder.io/v1
kind: CronJob
metadata: {name: %s-%d}
spec:
  schedule: "*/1 * * * *"
  startingDeadlineSeconds: %d
  concurrencyPolicy: Allow
  jobTemplate:
    spec:
      suspend: true
      template:
        spec:
          containers: [{name: c, image: busybox, args: [/bin/true]}]
          restartPolicy: OnFailure
`, prefix, i, deadline)
	}
	return b.String()
}

// jobLedger is what the cluster holds: for each CronJob, its creation time and how many Jobs exist for each
// scheduled time (Unix minutes).
type jobLedger struct {
	created map[string]time.Time
	// lastMissed is each CronJob's status.lastMissedTime: every time up to it the controller decided on,
	// running it or recording it as missed.
	lastMissed map[string]time.Time
	runs       map[string]map[int64]int
	jobs       int
	// lags are, per Job, the seconds from its scheduled time to its creation (creationTimestamp, 1 s steps).
	lags []float64
	// late names the Jobs created more than 20 s after their scheduled time, with the lag.
	late []string
	// jobCreated is each Job's creationTimestamp.
	jobCreated []time.Time
}

// readLedger lists the namespace's CronJobs and Jobs (owner and scheduled-time annotation of each Job).
func readLedger(t testing.TB, k kube, ns string) jobLedger {
	t.Helper()
	l := jobLedger{created: map[string]time.Time{}, lastMissed: map[string]time.Time{}, runs: map[string]map[int64]int{}}
	cjs := k.kubectl(t, "-n", ns, "get", "cronjobs.batch.tutorial.kubebuilder.io", "-o",
		`jsonpath={range .items[*]}{.metadata.name}={.metadata.creationTimestamp}={.status.lastMissedTime}{"\n"}{end}`)
	for _, line := range strings.Fields(cjs) {
		f := strings.Split(line, "=")
		if len(f) != 3 {
			t.Fatalf("unexpected CronJob line %q", line)
		}
		at, err := time.Parse(time.RFC3339, f[1])
		if err != nil {
			t.Fatalf("CronJob %s creationTimestamp %q: %v", f[0], f[1], err)
		}
		l.created[f[0]], l.runs[f[0]] = at, map[int64]int{}
		if missed, err := time.Parse(time.RFC3339, f[2]); err == nil {
			l.lastMissed[f[0]] = missed
		}
	}
	jobs := k.kubectl(t, "-n", ns, "get", "jobs", "-o",
		`jsonpath={range .items[*]}{.metadata.ownerReferences[0].name}`+
			`={.metadata.annotations.batch\.kubernetes\.io/cronjob-scheduled-timestamp}`+
			`={.metadata.creationTimestamp}{"\n"}{end}`)
	for _, line := range strings.Fields(jobs) {
		f := strings.Split(line, "=")
		if len(f) != 3 {
			t.Fatalf("unexpected Job line %q", line)
		}
		owner := f[0]
		at, err := time.Parse(time.RFC3339, f[1])
		if err != nil {
			t.Fatalf("Job of %s has no scheduled time (%q): %v", owner, f[1], err)
		}
		if createdAt, err := time.Parse(time.RFC3339, f[2]); err == nil {
			lag := createdAt.Sub(at)
			l.lags = append(l.lags, lag.Seconds())
			l.jobCreated = append(l.jobCreated, createdAt)
			if lag > 20*time.Second {
				l.late = append(l.late, fmt.Sprintf("%s@%s+%s", owner, at.UTC().Format("15:04"), lag))
			}
		}
		if l.runs[owner] == nil {
			l.runs[owner] = map[int64]int{}
		}
		l.runs[owner][at.Unix()/60]++
		l.jobs++
	}
	return l
}

// createdBetween counts the Jobs created from a to b (creationTimestamp has whole seconds).
func (l jobLedger) createdBetween(a, b time.Time) int {
	n := 0
	for _, at := range l.jobCreated {
		if !at.Before(a.Truncate(time.Second)) && !at.After(b) {
			n++
		}
	}
	return n
}

// check counts, for every scheduled minute from from (zero: each CronJob's creation) up to and including
// until, the minutes with no Job (missed) and the Jobs beyond one per minute (duplicates, counted over every
// minute).
func (l jobLedger) check(from, until time.Time) (expected, missed, duplicates int, detail []string) {
	for name, m := range l.due(from, until) {
		expected++
		if l.runs[name][m] == 0 {
			missed++
			detail = append(detail, fmt.Sprintf("%s missed %s", name, clockMinute(m)))
		}
	}
	for name, runs := range l.runs {
		for m, n := range runs {
			if n > 1 {
				duplicates += n - 1
				detail = append(detail, fmt.Sprintf("%s has %d Jobs for %s", name, n, clockMinute(m)))
			}
		}
	}
	sort.Strings(detail)
	if len(detail) > 10 {
		detail = append(detail[:10], fmt.Sprintf("… %d more", len(detail)-10))
	}
	return expected, missed, duplicates, detail
}

// missedByMinute lists, in time order, each scheduled minute up to until with runs missed and how many.
func (l jobLedger) missedByMinute(until time.Time) string {
	byMinute := map[int64]int{}
	for name, m := range l.due(time.Time{}, until) {
		if l.runs[name][m] == 0 {
			byMinute[m]++
		}
	}
	var out []string
	for _, m := range slices.Sorted(maps.Keys(byMinute)) {
		out = append(out, fmt.Sprintf("%s %d", clockMinute(m), byMinute[m]))
	}
	return strings.Join(out, ", ")
}

// due yields every CronJob with each of its scheduled minutes (Unix minutes) from from (zero: the CronJob's
// creation) up to and including until.
func (l jobLedger) due(from, until time.Time) iter.Seq2[string, int64] {
	return func(yield func(string, int64) bool) {
		for name, created := range l.created {
			for m := max(created.Unix()/60+1, from.Unix()/60); m <= until.Unix()/60; m++ {
				if !yield(name, m) {
					return
				}
			}
		}
	}
}

// clockMinute is the UTC hh:mm of a Unix minute.
func clockMinute(m int64) string { return time.Unix(m*60, 0).UTC().Format("15:04") }

// createdSpan returns the earliest and the latest creation time of the CronJobs.
func (l jobLedger) createdSpan() (first, last time.Time) {
	for _, c := range l.created {
		if first.IsZero() || c.Before(first) {
			first = c
		}
		if c.After(last) {
			last = c
		}
	}
	return first, last
}

// collapsed counts, up to until, the minutes without a Job that have a later Job of the same CronJob: due
// times the controller skipped for a later one (Kubernetes' semantics, which siteops follows: of several due
// times only the most recent runs). recorded of them are covered by status.lastMissedTime; the others were
// skipped by a manager that died before it patched the status. trailing lists the minutes with no later Job.
func (l jobLedger) collapsed(until time.Time) (recorded, unrecorded int, trailing []string) {
	for name, created := range l.created {
		latest := int64(0)
		for m := range l.runs[name] {
			latest = max(latest, m)
		}
		for m := created.Unix()/60 + 1; m <= until.Unix()/60; m++ {
			switch lm, ok := l.lastMissed[name]; {
			case l.runs[name][m] > 0:
			case m > latest:
				trailing = append(trailing, fmt.Sprintf("%s %s", name, clockMinute(m)))
			case ok && m <= lm.Unix()/60:
				recorded++
			default:
				unrecorded++
			}
		}
	}
	sort.Strings(trailing)
	return recorded, unrecorded, trailing
}

// behind lists the CronJobs with no Job for any minute at or after from.
func (l jobLedger) behind(from time.Time) []string {
	var names []string
	for name := range l.created {
		ok := false
		for m := range l.runs[name] {
			ok = ok || m >= from.Unix()/60
		}
		if !ok {
			names = append(names, name)
		}
	}
	sort.Strings(names)
	return names
}

// percentile returns the p-th percentile (0-100) of xs, nearest rank; 0 for none.
func percentile(xs []float64, p float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := append([]float64(nil), xs...)
	sort.Float64s(s)
	i := int(float64(len(s))*p/100+0.5) - 1
	return s[max(0, min(i, len(s)-1))]
}

// nextMinute is the first minute boundary strictly after at.
func nextMinute(at time.Time) time.Time { return at.Truncate(time.Minute).Add(time.Minute) }

// processUsage is a process's peak resident memory (VmHWM) and CPU time so far, from /proc.
type processUsage struct {
	peakRSSMiB float64
	cpu        time.Duration
}

// usageOf reads the process's usage from /proc; zero values when the process is gone.
func usageOf(pid int) processUsage {
	u, err := procstat.Read(pid)
	if err != nil {
		return processUsage{}
	}
	return processUsage{peakRSSMiB: float64(u.PeakRSS) / (1 << 20), cpu: u.CPU}
}
