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

// Package procstat reads a process's CPU time and memory from Linux's /proc, for the tests and benchmarks
// that measure the manager and the cluster's processes.
package procstat

import (
	"bytes"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"
)

// Usage is a process's CPU time so far and its memory at one moment.
type Usage struct {
	// CPU is the user and system CPU time.
	CPU time.Duration
	// ChildrenCPU is the user and system CPU time of the children the process has waited for (e.g. the git
	// commands a controller runs).
	ChildrenCPU time.Duration
	// RSS and PeakRSS are VmRSS and VmHWM (the peak), in bytes.
	RSS, PeakRSS int64
}

// Read reads /proc/<pid>/stat (utime, stime, cutime and cstime, in clock ticks of 1/100 s on Linux) and
// /proc/<pid>/status.
func Read(pid int) (Usage, error) {
	var u Usage
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return u, fmt.Errorf("reading stat of %d: %w", pid, err)
	}
	// The fields after the command name (which may hold spaces) start after the last ')'.
	f := strings.Fields(string(stat[bytes.LastIndexByte(stat, ')')+1:]))
	if len(f) < 13 {
		return u, fmt.Errorf("short stat of %d", pid)
	}
	ut, _ := strconv.ParseInt(f[11], 10, 64) // field 14, utime
	st, _ := strconv.ParseInt(f[12], 10, 64) // field 15, stime
	u.CPU = time.Duration(ut+st) * time.Second / 100
	if len(f) >= 15 {
		cut, _ := strconv.ParseInt(f[13], 10, 64) // field 16, cutime
		cst, _ := strconv.ParseInt(f[14], 10, 64) // field 17, cstime
		u.ChildrenCPU = time.Duration(cut+cst) * time.Second / 100
	}
	status, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return u, fmt.Errorf("reading status of %d: %w", pid, err)
	}
	for _, line := range strings.Split(string(status), "\n") {
		k, v, ok := strings.Cut(line, ":")
		if !ok || (k != "VmRSS" && k != "VmHWM") {
			continue
		}
		kb, _ := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
		if k == "VmRSS" {
			u.RSS = kb << 10
		} else {
			u.PeakRSS = kb << 10
		}
	}
	return u, nil
}
