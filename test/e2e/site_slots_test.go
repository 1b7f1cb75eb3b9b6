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
	"context"
	"os"
	"strconv"
	"testing"
	"time"

	"golang.org/x/sync/semaphore"
)

// siteClusters is how many site clusters of their own the parallel tests run at once, beside the fleet's
// (SITEOPS_E2E_SITE_CLUSTERS, default 6). Each running site cluster costs about 2 % of a core while idle and
// more while a test delivers to it; with every test's clusters up at once the tests held a dozen, the hub's
// kube-apiserver and Argo CD were starved, and deadlines passed (a status patch and an Event timed out on
// the hub). A test waits for its clusters' slots before it starts them and frees them when it ends.
var siteClusters = semaphore.NewWeighted(siteClusterSlots())

func siteClusterSlots() int64 {
	if n, err := strconv.ParseInt(os.Getenv("SITEOPS_E2E_SITE_CLUSTERS"), 10, 64); err == nil && n > 0 {
		return n
	}
	return 6
}

// siteSlots waits for n slots of siteClusters and frees them when the test ends, after the cleanups the test
// registers later (those stop its clusters). It logs a wait over 5 s.
func siteSlots(t *testing.T, n int) {
	t.Helper()
	// A test that needs more clusters than there are slots takes them all, rather than wait forever.
	w := min(int64(n), siteClusterSlots())
	start := time.Now()
	if err := siteClusters.Acquire(context.Background(), w); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { siteClusters.Release(w) })
	if waited := time.Since(start); waited > 5*time.Second {
		t.Logf("waited %s for %d site cluster slots", waited.Round(100*time.Millisecond), n)
	}
}
