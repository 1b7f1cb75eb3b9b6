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
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// clusterProcesses are the local cluster's processes (hack/local-cluster.sh writes a PID file for each)
// whose CPU the load test reports beside the manager's.
var clusterProcesses = []string{"kube-apiserver", "etcd", "kube-controller-manager", "kube-scheduler", "kwok"}

// cpuSample is the CPU time of the machine and of named processes at one moment.
type cpuSample struct {
	at time.Time
	// busy and total are the machine's CPU time, all cores: busy excludes idle and iowait.
	busy, total time.Duration
	procs       map[string]time.Duration
}

// sampleCPU reads /proc/stat and the CPU time of each process in pids.
func sampleCPU(t *testing.T, pids map[string]int) cpuSample {
	t.Helper()
	s := cpuSample{at: time.Now(), procs: map[string]time.Duration{}}
	stat, err := os.ReadFile("/proc/stat")
	if err != nil {
		t.Fatalf("reading /proc/stat: %v", err)
	}
	line, _, _ := strings.Cut(string(stat), "\n")
	for i, f := range strings.Fields(line)[1:] {
		ticks, err := strconv.ParseInt(f, 10, 64)
		if err != nil {
			t.Fatalf("/proc/stat: %q: %v", line, err)
		}
		d := time.Duration(ticks) * time.Second / 100 // USER_HZ is 100 on Linux
		if i == 8 || i == 9 {
			continue // guest time is already counted in user time
		}
		s.total += d
		if i != 3 && i != 4 { // idle, iowait
			s.busy += d
		}
	}
	for name, pid := range pids {
		s.procs[name] = usageOf(pid).cpu
	}
	return s
}

// clusterPids reads the PID files of the local cluster's clusterProcesses; a process not running is left out.
func clusterPids(t *testing.T) map[string]int {
	t.Helper()
	pids := map[string]int{}
	for _, name := range clusterProcesses {
		b, err := os.ReadFile(filepath.Join(cluster.dir, name+".pid"))
		if err != nil {
			continue
		}
		pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
		if err != nil {
			t.Fatalf("%s.pid: %v", name, err)
		}
		if _, err := os.Stat(fmt.Sprintf("/proc/%d", pid)); err == nil {
			pids[name] = pid
		}
	}
	return pids
}

// cpuBetween describes the CPU the machine and each process spent from a to b: cores busy, and per Job when
// jobs is positive.
func cpuBetween(a, b cpuSample, order []string, jobs int) string {
	wall := b.at.Sub(a.at).Seconds()
	cores := func(d time.Duration) string {
		s := fmt.Sprintf("%.2f cores", d.Seconds()/wall)
		if jobs > 0 {
			s += fmt.Sprintf(", %.1f ms per Job", float64(d.Microseconds())/1000/float64(jobs))
		}
		return s
	}
	parts := []string{fmt.Sprintf("machine (%.0f cores) %s", (b.total-a.total).Seconds()/wall, cores(b.busy-a.busy))}
	for _, name := range order {
		if before, ok := a.procs[name]; ok {
			parts = append(parts, fmt.Sprintf("%s %s", name, cores(b.procs[name]-before)))
		}
	}
	return strings.Join(parts, "; ")
}

// procShare is name's part of the CPU every sampled process spent from a to b: unlike a share of the
// machine's busy time, it does not move with other work on the machine.
func procShare(a, b cpuSample, name string) (float64, bool) {
	var all time.Duration
	for p, before := range a.procs {
		all += b.procs[p] - before
	}
	if all <= 0 {
		return 0, false
	}
	return (b.procs[name] - a.procs[name]).Seconds() / all.Seconds(), true
}
