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
	"syscall"
	"testing"
	"time"
)

// measurement is the wall-clock and CPU time (user + system) of one measured run. CPU time holds up better
// than wall-clock time on a machine shared with other work.
type measurement struct {
	wall, cpu time.Duration
}

// processCPU is the CPU time this process has used so far.
func processCPU(tb testing.TB) time.Duration {
	tb.Helper()
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		tb.Fatalf("getrusage: %v", err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// stopwatch starts measuring wall-clock and this process's CPU time; calling the result stops it.
func stopwatch(tb testing.TB) func() measurement {
	tb.Helper()
	start, cpu := time.Now(), processCPU(tb)
	return func() measurement {
		return measurement{wall: time.Since(start), cpu: processCPU(tb) - cpu}
	}
}

// walls and cpus split measurements into their wall-clock and CPU times.
func walls(ms []measurement) []time.Duration {
	out := make([]time.Duration, len(ms))
	for i, m := range ms {
		out[i] = m.wall
	}
	return out
}

func cpus(ms []measurement) []time.Duration {
	out := make([]time.Duration, len(ms))
	for i, m := range ms {
		out[i] = m.cpu
	}
	return out
}
