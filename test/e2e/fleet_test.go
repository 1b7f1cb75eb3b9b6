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
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestFleetPushReachesEachSiteCluster runs siteops as the product says, on the local fleet: a hub (Argo CD,
// its ApplicationSet controller, the manager) and two site clusters, each its own kube-apiserver with
// kube-controller-manager, kube-scheduler and kwok, registered in Argo CD by a cluster Secret. The
// ApplicationSet of base/argocd, applied with only its repository URL changed, generates one Application per
// site folder of the rendered branch, with the site's cluster as destination. Then:
//  1. both sites come up Delivered at their rendered commits;
//  2. a push to overlays/site-a changes only cluster A: cluster B's objects keep their resourceVersions, and
//     SiteSync shows A Delivered at the new commit;
//  3. a base change reaches both;
//  4. a push that makes site B's Deployment unable to become available shows B Degraded with Argo CD's
//     message and a Warning event, while A stays Delivered;
//  5. with site B's cluster stopped, SiteSync shows B unreachable with Argo CD's message and A keeps syncing;
//     started again, B converges without anyone doing anything;
//  6. a third site is added as docs/fleet.md's "Add a site" says: overlay, cluster Secret, push.
//
// It runs beside other tests: only it delivers to the fleet's site clusters, so it may stop one.
func TestFleetPushReachesEachSiteCluster(t *testing.T) {
	t.Parallel()
	if len(cluster.sites) < 2 {
		t.Fatalf("the local fleet has sites %v, want two", cluster.sites)
	}
	a, b := cluster.sites[0], cluster.sites[1]
	f := newFleet(t, "fleet")
	waitFor(t, time.Minute, "manager Ready", func() (bool, string) { return f.mgr.Ready(), "" })

	// 1. Both sites Delivered at the first rendered commit.
	waitFor(t, 2*time.Minute, "first rendered commit", func() (bool, string) { return f.renderedHead() != "", "" })
	first := f.renderedHead()
	f.waitDelivered(4*time.Minute, map[string]string{a: first, b: first})
	for _, s := range []string{a, b} {
		if got := onSite(s, "-n", "siteops-system", "get", "cm", "site-info", "-o", "jsonpath={.data.site}"); got != s {
			t.Fatalf("cluster %s has site-info.site %q, want %q", s, got, s)
		}
		if got := onSite(s, "-n", "siteops-system", "get", "deploy", "web", "-o",
			"jsonpath={.status.availableReplicas}"); got != "2" {
			t.Fatalf("cluster %s: web has %q available replicas, want 2", s, got)
		}
	}
	waitFor(t, time.Minute, "DELIVERED 2/2", func() (bool, string) {
		got := jsonpath("-n", f.namespace, "get", "sitesync", "sites", "-o", "jsonpath={.status.delivered}")
		return got == "2/2", got
	})
	f.transcript("both sites delivered")

	// 2. A push to site A's overlay changes only cluster A.
	rvB := onSite(b, "-n", "siteops-system", "get", "cm,deploy", "-o",
		"jsonpath={range .items[*]}{.metadata.name}={.metadata.resourceVersion} {end}")
	writeFile(t, f.work, "overlays/"+a+"/site-values.yaml", siteValues(a, "two"))
	f.push(a + ": greeting two")
	toA := f.renderedHead()
	f.waitDelivered(2*time.Minute, map[string]string{a: toA, b: first})
	if got := onSite(a, "-n", "siteops-system", "get", "cm", "site-info", "-o",
		"jsonpath={.data.greeting}"); got != "two" {
		t.Fatalf("cluster %s greeting %q, want two", a, got)
	}
	if after := onSite(b, "-n", "siteops-system", "get", "cm,deploy", "-o",
		"jsonpath={range .items[*]}{.metadata.name}={.metadata.resourceVersion} {end}"); after != rvB {
		t.Fatalf("a push to %s's overlay changed cluster %s: resourceVersions %s, then %s", a, b, rvB, after)
	}

	// 3. A base change reaches both.
	editFile(t, f.work, "base/site-info.yaml", `release: "1"`, `release: "2"`)
	f.push("base: release 2")
	both := f.renderedHead()
	f.waitDelivered(2*time.Minute, map[string]string{a: both, b: both})
	for _, s := range []string{a, b} {
		if got := onSite(s, "-n", "siteops-system", "get", "cm", "site-info", "-o", "jsonpath={.data.release}"); got != "2" {
			t.Fatalf("cluster %s release %q, want 2", s, got)
		}
	}
	f.transcript("after a base change")

	// 4. Site B's web can never become available (no node matches its selector): Degraded, with Argo CD's
	// message and a Warning event; A stays Delivered.
	writeFile(t, f.work, "overlays/"+b+"/site-values.yaml", siteValues(b, "one")+"---\n"+noNodePatch)
	f.push(b + ": web on a node that does not exist")
	broken := f.renderedHead()
	waitFor(t, 3*time.Minute, b+" Degraded with Argo CD's message", func() (bool, string) {
		got := f.site(b, "renderedCommit", "delivery", "health")
		return got == broken+"|Degraded|Degraded" && strings.Contains(f.site(b, "deliveryMessage"), "progress deadline"),
			got + " " + f.site(b, "deliveryMessage")
	})
	waitFor(t, time.Minute, "a Warning event naming "+b, func() (bool, string) {
		ev := f.eventLines("reason=SiteDegraded,type=Warning")
		return strings.Contains(ev, b) && strings.Contains(ev, "progress deadline"), ev
	})
	f.waitDelivered(time.Minute, map[string]string{a: both})
	f.transcript("site B degraded")

	// Fix B, then stop B's cluster: B unreachable, A keeps syncing; B back, converged without a person.
	writeFile(t, f.work, "overlays/"+b+"/site-values.yaml", siteValues(b, "one"))
	f.push(b + ": web back on any node")
	fixed := f.renderedHead()
	f.waitDelivered(3*time.Minute, map[string]string{a: both, b: fixed})
	localCluster(t, "stop-site", b)
	stopped := true
	t.Cleanup(func() {
		if stopped {
			localCluster(t, "start-site", b)
		}
	})
	invalidateClusterCache(t, b)
	writeFile(t, f.work, "overlays/"+a+"/site-values.yaml", siteValues(a, "three"))
	f.push(a + ": greeting three while " + b + " is down")
	whileDown := f.renderedHead()
	f.waitDelivered(2*time.Minute, map[string]string{a: whileDown})
	waitFor(t, 3*time.Minute, b+" Unreachable with Argo CD's message", func() (bool, string) {
		got := f.site(b, "delivery")
		return got == "Unreachable" && f.site(b, "deliveryMessage") != "", got + " " + f.site(b, "deliveryMessage")
	})
	f.transcript("site B's cluster stopped")
	localCluster(t, "start-site", b)
	stopped = false
	f.waitDelivered(4*time.Minute, map[string]string{a: whileDown, b: fixed})
	f.transcript("site B's cluster started again")

	// 6. Add a site as docs/fleet.md's "Add a site" says: an overlay, the site's cluster registered in Argo CD (here
	// a new site cluster, whose cluster Secret local-cluster.sh writes), a push. No Application by hand.
	const c = "site-c"
	addSite(t, c)
	if err := os.MkdirAll(filepath.Join(f.work, "overlays", c), 0o755); err != nil {
		t.Fatal(err)
	}
	writeFile(t, f.work, "overlays/"+c+"/kustomization.yaml",
		"resources:\n- ../../base\npatches:\n- path: site-values.yaml\n")
	writeFile(t, f.work, "overlays/"+c+"/site-values.yaml", siteValues(c, "hello"))
	git(t, f.work, "add", "overlays/"+c)
	f.push("add site " + c)
	added := f.renderedHead()
	f.waitDelivered(2*time.Minute, map[string]string{a: whileDown, b: fixed, c: added})
	if got := onSite(c, "-n", "siteops-system", "get", "cm", "site-info", "-o", "jsonpath={.data.site}"); got != c {
		t.Fatalf("cluster %s has site-info.site %q, want %q", c, got, c)
	}
	f.transcript("site C added")
}
