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
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/siteops/siteops/test/procstat"
)

// sideProcs are the processes of one side of the mean time to production, by name: their CPU time (with the
// children they waited for, e.g. git) is counted from start to stop, and their peak RSS is VmHWM at stop.
type sideProcs struct {
	pids  map[string]int
	start map[string]time.Duration
	usage []procFigure
}

// procFigure is one process's CPU time over the run and its peak RSS.
type procFigure struct {
	name string
	cpu  time.Duration
	peak int64
}

// newSideProcs names the side's processes.
func newSideProcs() *sideProcs {
	return &sideProcs{pids: map[string]int{}, start: map[string]time.Duration{}}
}

// add names process pid.
func (p *sideProcs) add(name string, pid int) { p.pids[name] = pid }

// addPIDFile names the process of hack/local-cluster.sh's PID file dir/name.pid.
func (p *sideProcs) addPIDFile(tb testing.TB, dir, name string) {
	tb.Helper()
	b, err := os.ReadFile(filepath.Join(dir, name+".pid"))
	mustDo(tb, err)
	pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
	mustDo(tb, err)
	p.add(name, pid)
}

// begin reads each process's CPU time at the start of the run.
func (p *sideProcs) begin(tb testing.TB) {
	tb.Helper()
	for name, pid := range p.pids {
		u, err := sampleProcWithChildren(pid)
		mustDo(tb, err)
		p.start[name] = u.cpu
	}
}

// end reads each process's CPU time and peak RSS at the end of the run.
func (p *sideProcs) end(tb testing.TB) {
	tb.Helper()
	p.usage = nil
	for name, pid := range p.pids {
		u, err := sampleProcWithChildren(pid)
		mustDo(tb, err)
		p.usage = append(p.usage, procFigure{name: name, cpu: u.cpu - p.start[name], peak: u.hwm})
	}
	sort.Slice(p.usage, func(i, j int) bool { return p.usage[i].peak > p.usage[j].peak })
}

// sampleProcWithChildren is sampleProc with the CPU time of the children the process waited for added.
func sampleProcWithChildren(pid int) (procSample, error) {
	u, err := procstat.Read(pid)
	return procSample{cpu: u.CPU + u.ChildrenCPU, rss: u.RSS, hwm: u.PeakRSS}, err
}

// cpu is the side's CPU time over the run, peak the sum of its processes' peak RSS.
func (p *sideProcs) cpu() time.Duration {
	var t time.Duration
	for _, u := range p.usage {
		t += u.cpu
	}
	return t
}

func (p *sideProcs) peak() int64 {
	var t int64
	for _, u := range p.usage {
		t += u.peak
	}
	return t
}

// String lists each process's CPU time and peak RSS, largest peak first.
func (p *sideProcs) String() string {
	var parts []string
	for _, u := range p.usage {
		parts = append(parts, fmt.Sprintf("%s %s / %s", u.name, FormatDuration(u.cpu), formatMiB(u.peak)))
	}
	return strings.Join(parts, ", ")
}
