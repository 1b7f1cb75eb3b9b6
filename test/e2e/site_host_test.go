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
	"sync"
	"testing"
	"time"
)

// namespaceSitesHost is the site cluster whose namespaces are the sites of the waves tests (newFleetOn): each
// test's sites are namespaces named like them, so the tests share the cluster without sharing an object.
const namespaceSitesHost = "ns-sites"

// namespaceSites starts namespaceSitesHost once, for every test that asks, and keeps it until the fleet stops.
// It holds one slot of siteClusters from its start to the end of the run, and returns how long it waited for it.
var namespaceSites = sync.OnceValues(func() (time.Duration, error) {
	start := time.Now()
	if err := siteClusters.Acquire(context.Background(), 1); err != nil {
		return 0, err
	}
	return time.Since(start), tryLocalCluster("add-site", namespaceSitesHost)
})

// siteHost returns namespaceSitesHost, started (namespaceSites). Unlike ownSites, the test that started it does
// not stop it: the tests after it still deliver to it.
func siteHost(t *testing.T) string {
	t.Helper()
	waited, err := namespaceSites()
	if err != nil {
		t.Fatal(err)
	}
	if waited > 5*time.Second {
		t.Logf("site cluster %s waited %s for a slot", namespaceSitesHost, waited.Round(100*time.Millisecond))
	}
	return namespaceSitesHost
}
