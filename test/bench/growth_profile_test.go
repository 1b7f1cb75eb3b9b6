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
	"runtime/pprof"
)

// envGrowthCPUProfile names a folder: when set, each full-render growth worker writes the CPU profile of its
// Sync there as growth-full-<sites>.prof (for `go tool pprof`): the last full Sync of a size, the warm one
// the row reports, leaves its profile.
const envGrowthCPUProfile = "SITEOPS_BENCH_GROWTH_CPUPROFILE"

// startGrowthProfile starts the CPU profile of a full render of sites when envGrowthCPUProfile asks for one;
// the returned stop ends it (a no-op when none was asked for).
func startGrowthProfile(sites int) (stop func() error, err error) {
	dir := os.Getenv(envGrowthCPUProfile)
	if dir == "" {
		return func() error { return nil }, nil
	}
	f, err := os.Create(filepath.Join(dir, fmt.Sprintf("growth-full-%d.prof", sites)))
	if err != nil {
		return nil, fmt.Errorf("CPU profile: %w", err)
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		_ = f.Close()
		return nil, fmt.Errorf("CPU profile: %w", err)
	}
	return func() error {
		pprof.StopCPUProfile()
		return f.Close()
	}, nil
}
