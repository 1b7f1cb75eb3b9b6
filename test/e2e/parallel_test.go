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
	"errors"
	"sync"
	"testing"

	"github.com/siteops/siteops/apis"
)

// The end-to-end tests share one local fleet. A test that needs the whole fleet to itself (it kills or
// restarts a shared component, or measures one writer or the machine's CPU) does not call t.Parallel, and says
// why; go test runs those one after the other first. Every other test calls t.Parallel first thing and keeps to
// names of its own: namespace, Git repository, Argo CD Applications, the shard its managers watch (shardFlag)
// and the site clusters it delivers to: the fleet test has the fleet's (cluster.sites), every other test that
// delivers to sites starts its own (ownSites).
var (
	// hubManager is the hub's siteops-system: the manager Rollout and its Services, the webhook configurations
	// that send every CronJob's admission to one manager, and the Lease of the managers of the main shard. It
	// serves one test at a time, which holds it (hold).
	hubManager sync.Mutex
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

// addSite starts one more site cluster and registers it in the hub's Argo CD (local-cluster.sh add-site); it
// stops it when the test ends. Tests add sites at the same time: local-cluster.sh gives each its own ports.
func addSite(t *testing.T, name string) {
	t.Helper()
	ownSites(t, name)
}

// ownCluster starts a cluster of the test's own, as a site cluster is started but not registered in Argo CD
// (local-cluster.sh add-cluster), with siteops' CRDs installed; it stops it when the test ends.
func ownCluster(t *testing.T, name string) kube {
	t.Helper()
	siteSlots(t, 1)
	localCluster(t, "add-cluster", name)
	t.Cleanup(func() { localCluster(t, "stop-site", name) })
	k := siteKube(name)
	if err := k.installCRDs(); err != nil {
		t.Fatal(err)
	}
	return k
}

// ownSites starts site clusters of the test's own (addSite), so that it delivers to sites no other test
// stops, syncs or writes to, and returns their names.
func ownSites(t *testing.T, names ...string) []string {
	t.Helper()
	siteSlots(t, len(names))
	errs := make([]error, len(names))
	var wg sync.WaitGroup
	for i, n := range names {
		t.Cleanup(func() {
			localCluster(t, "stop-site", n)
			_, _ = tryKubectl("-n", "argocd", "delete", "secret", "cluster-"+n, "--ignore-not-found")
		})
		wg.Go(func() { errs[i] = tryLocalCluster("add-site", n) })
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		t.Fatal(err)
	}
	return names
}
