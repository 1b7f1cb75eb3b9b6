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

// siteClusterSlots is how many site clusters of their own the parallel tests run at once, beside the fleet's:
// SITEOPS_E2E_SITE_CLUSTERS, 6 by default. With every test's clusters up at once, the hub's kube-apiserver and
// Argo CD were starved and the tests' deadlines passed; the figures are in the commit that added the limit.
var siteClusterSlots = siteClusterSlotsFromEnv()

// siteClusters holds a slot for each site cluster of its own a parallel test runs.
var siteClusters = semaphore.NewWeighted(siteClusterSlots)

func siteClusterSlotsFromEnv() int64 {
	if n, err := strconv.ParseInt(os.Getenv("SITEOPS_E2E_SITE_CLUSTERS"), 10, 64); err == nil && n > 0 {
		return n
	}
	return 6
}

// siteSlots waits for n slots of siteClusters, or all of them when n is more, and frees them when the test
// ends, after the cleanups the test registers later (those stop its clusters). It logs a wait over 5 s.
func siteSlots(t *testing.T, n int) {
	t.Helper()
	w := min(int64(n), siteClusterSlots)
	start := time.Now()
	if err := siteClusters.Acquire(context.Background(), w); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { siteClusters.Release(w) })
	if waited := time.Since(start); waited > 5*time.Second {
		t.Logf("waited %s for %d site cluster slots", waited.Round(100*time.Millisecond), w)
	}
}
