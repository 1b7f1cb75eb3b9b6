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
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"
)

// guestbookPods lists the Guestbook's pods that are not being deleted, as name=role=ready, sorted.
func guestbookPods(k kube, ns, gb string) []string {
	out := k.jsonpath("-n", ns, "get", "pods", "-l", "webapp.my.domain/guestbook="+gb, "-o",
		`jsonpath={range .items[*]}{.metadata.name}={.metadata.labels.webapp\.my\.domain/role}`+
			`={.status.conditions[?(@.type=="Ready")].status}={.metadata.deletionTimestamp}{" "}{end}`)
	var pods []string
	for _, p := range strings.Fields(out) {
		if desc, live := strings.CutSuffix(p, "="); live { // no deletionTimestamp
			pods = append(pods, desc)
		}
	}
	slices.Sort(pods)
	return pods
}

// podsWithRole picks the names of pods (from guestbookPods) with role.
func podsWithRole(pods []string, role string) []string {
	var names []string
	for _, p := range pods {
		if parts := strings.Split(p, "="); len(parts) == 3 && parts[1] == role {
			names = append(names, parts[0])
		}
	}
	return names
}

// readyEndpoints lists, sorted, the pods behind a Service's EndpointSlices that are ready, as the
// EndpointSlice controller of kube-controller-manager wrote them.
func readyEndpoints(k kube, ns, service string) []string {
	out := k.jsonpath("-n", ns, "get", "endpointslices", "-l", "kubernetes.io/service-name="+service, "-o",
		`jsonpath={range .items[*].endpoints[*]}{.targetRef.name}={.conditions.ready}{" "}{end}`)
	var names []string
	for _, e := range strings.Fields(out) {
		if name, ready, _ := strings.Cut(e, "="); ready == "true" {
			names = append(names, name)
		}
	}
	slices.Sort(names)
	return names
}

// waitForActive waits until exactly one Ready pod other than not is active, size-1 pods are standby, and
// the <gb> and <gb>-standby Services' ready endpoints are exactly those pods; it returns the active pod.
func waitForActive(t *testing.T, k kube, ns, gb string, size int, not string) string {
	t.Helper()
	var active string
	waitFor(t, 3*time.Minute, fmt.Sprintf("one active pod (not %q), %d standbys, endpoints following", not, size-1),
		func() (bool, string) {
			pods := guestbookPods(k, ns, gb)
			act, standby := podsWithRole(pods, "active"), podsWithRole(pods, "standby")
			ep, epStandby := readyEndpoints(k, ns, gb), readyEndpoints(k, ns, gb+"-standby")
			desc := fmt.Sprintf("pods %v, endpoints %s=%v %s-standby=%v", pods, gb, ep, gb, epStandby)
			if len(act) != 1 || act[0] == not || len(standby) != size-1 || !slices.Equal(ep, act) {
				return false, desc
			}
			var readyStandby []string
			for _, p := range pods {
				if strings.HasSuffix(p, "=standby=True") {
					readyStandby = append(readyStandby, strings.SplitN(p, "=", 2)[0])
				}
			}
			if !slices.Equal(epStandby, readyStandby) {
				return false, desc
			}
			active = act[0]
			return true, ""
		})
	return active
}

// TestGuestbookFailoverOnLocalCluster runs a Guestbook of three pods on the local cluster (Deployment,
// ReplicaSet and EndpointSlice controllers of kube-controller-manager, pods made Ready by kwok) with the
// manager as a host process: one pod is active behind the <name> Service and two are standbys; marking the
// active pod NotReady, then deleting the next active pod, each promotes a standby and the Service's endpoints
// follow. The times from the change to the endpoints moving are logged, not asserted. It runs beside other
// tests: the Guestbook carries the test's shard label, which is all its manager watches.
func TestGuestbookFailoverOnLocalCluster(t *testing.T) {
	t.Parallel()
	ns := "e2e-guestbook"
	kubectl(t, "create", "namespace", ns)
	startManager(t, "guestbook", shardFlag(ns))
	apply(t, ns, `
apiVersion: v1
kind: ConfigMap
metadata: {name: gbconfig}
data: {title: e2e}
---
apiVersion: webapp.my.domain/v1
kind: Guestbook
metadata: {name: gb, labels: `+shardLabels(ns)+`}
spec: {size: 3, configMapName: gbconfig, alias: Address}
`)
	first := waitForActive(t, hub(), ns, "gb", 3, "")
	if got := jsonpath("-n", ns, "get", "guestbook", "gb", "-o", "jsonpath={.status.active}"); got != first {
		t.Fatalf("status.active is %q, the active pod is %q", got, first)
	}

	start := time.Now()
	kubectl(t, "-n", ns, "patch", "pod", first, "--subresource=status", "--type=strategic", "-p",
		`{"status":{"conditions":[{"type":"Ready","status":"False","reason":"E2E"}]}}`)
	second := waitForActive(t, hub(), ns, "gb", 3, first)
	t.Logf("NotReady %s -> endpoints on %s after %s", first, second, time.Since(start).Round(time.Millisecond))

	start = time.Now()
	kubectl(t, "-n", ns, "delete", "pod", second, "--wait=false")
	third := waitForActive(t, hub(), ns, "gb", 3, second)
	t.Logf("deleted %s -> endpoints on %s after %s", second, third, time.Since(start).Round(time.Millisecond))
	t.Logf("guestbook:\n%s", kubectl(t, "-n", ns, "get", "guestbook", "gb"))
}
