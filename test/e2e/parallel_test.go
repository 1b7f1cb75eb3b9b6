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
	"sync"
	"testing"

	"github.com/siteops/siteops/apis"
)

// The end-to-end tests share one local fleet. A test that needs the whole fleet to itself (it kills or
// restarts a shared component, or measures one writer or the machine's CPU) does not call t.Parallel, and says
// why; go test runs those one after the other first. Every other test calls t.Parallel first thing and keeps to
// names of its own: namespace, Git repository, Argo CD Application, and the shard its managers watch
// (shardFlag). Two parts of the fleet serve one test at a time and are held (hold) by the parallel tests that
// use them:
var (
	// hubManager is the hub's siteops-system: the manager Rollout and its Services, the webhook configurations
	// that send every CronJob's admission to one manager, and the Lease of the managers of the main shard.
	hubManager sync.Mutex
	// siteClusters is the fleet's site clusters (cluster.sites): base/argocd's ApplicationSet siteops-sites, the
	// Applications siteops-<site> it generates and namespace siteops-system on each site.
	siteClusters sync.Mutex
)

// hold locks mu for the rest of the test: it is unlocked after the test's cleanups registered later have run.
func hold(t *testing.T, mu *sync.Mutex) {
	t.Helper()
	mu.Lock()
	t.Cleanup(mu.Unlock)
}

// shardFlag is the manager flag that keeps a parallel test's managers to the CronJobs, Guestbooks and SiteSyncs
// labelled with shard (shardLabels): they lead a Lease of their own and reconcile no other test's objects, and
// the managers of the main shard (no label) leave the test's objects alone.
func shardFlag(shard string) string {
	return "--watch-label-selector=" + apis.ShardLabel + "=" + shard
}

// shardLabels is the metadata.labels of an object of shard, in YAML flow style.
func shardLabels(shard string) string {
	return "{" + apis.ShardLabel + ": " + shard + "}"
}
