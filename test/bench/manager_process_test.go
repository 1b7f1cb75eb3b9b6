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
	"sync"
	"testing"
	"time"

	"github.com/siteops/siteops/test/managerproc"
)

var buildManagerOnce struct {
	sync.Once
	path string
	err  error
}

// managerBinary builds ./cmd/manager once per test binary (managerproc.Build) into a temporary file named
// managerUserAgent+pid: client-go names a process' API requests after its binary.
func managerBinary(tb testing.TB) string {
	tb.Helper()
	buildManagerOnce.Do(func() {
		out := filepath.Join(os.TempDir(), fmt.Sprintf("%s%d", managerUserAgent, os.Getpid()))
		if err := managerproc.Build("manager", out, "v0.0.0-bench"); err != nil {
			buildManagerOnce.err = err
			return
		}
		buildManagerOnce.path = out
	})
	if buildManagerOnce.err != nil {
		tb.Fatal(buildManagerOnce.err)
	}
	return buildManagerOnce.path
}

// waitUntil polls cond every 50 ms until it holds, failing tb after timeout with what.
func waitUntil(tb testing.TB, timeout time.Duration, what string, cond func() bool) {
	tb.Helper()
	deadline := time.Now().Add(timeout)
	for !cond() {
		if time.Now().After(deadline) {
			tb.Fatalf("timed out after %s waiting for %s", timeout, what)
		}
		time.Sleep(50 * time.Millisecond)
	}
}
