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
	"strings"
	"testing"
	"time"

	gitopsv1alpha1 "github.com/siteops/siteops/apis/gitops/v1alpha1"
)

// managerSystem is the namespace of the sites' manager Rollout (the ApplicationSet's destination namespace).
const managerSystem = "siteops-system"

// managerRolloutSource is a source repository whose base is a site's siteops manager as a blue/green Rollout
// siteops-manager with its active and preview Services, in the shape of base/manager but self-contained, plus
// fleetSource's site-info ConfigMap with one overlay per site. The preview waits for a person
// (autoPromotionEnabled false) and runs no pre-promotion analysis: the sites' pods are kwok's, they run no
// process and serve no /shadow report to analyse. What is under test is the wave gating on the Rollout's
// health, not the manager.
func managerRolloutSource(sites []string, image string) map[string]string {
	files := fleetSource(sites)
	delete(files, "base/web.yaml")
	files["base/kustomization.yaml"] = "namespace: " + managerSystem + "\nresources:\n- site-info.yaml\n- manager.yaml\n"
	files["base/manager.yaml"] = `apiVersion: argoproj.io/v1alpha1
kind: Rollout
metadata:
  name: siteops-manager
  labels: {app.kubernetes.io/name: siteops, app.kubernetes.io/component: manager}
spec:
  replicas: 1
  revisionHistoryLimit: 2
  selector:
    matchLabels: {app.kubernetes.io/name: siteops, app.kubernetes.io/component: manager}
  strategy:
    blueGreen:
      activeService: siteops-webhook-service
      previewService: siteops-webhook-service-preview
      autoPromotionEnabled: false
  template:
    metadata:
      labels: {app.kubernetes.io/name: siteops, app.kubernetes.io/component: manager}
    spec:
      containers:
      - name: manager
        image: ` + image + `
        ports:
        - {name: webhook, containerPort: 9443, protocol: TCP}
---
apiVersion: v1
kind: Service
metadata:
  name: siteops-webhook-service
spec:
  selector: {app.kubernetes.io/name: siteops, app.kubernetes.io/component: manager}
  ports:
  - {name: webhook, port: 443, targetPort: webhook}
---
apiVersion: v1
kind: Service
metadata:
  name: siteops-webhook-service-preview
spec:
  selector: {app.kubernetes.io/name: siteops, app.kubernetes.io/component: manager}
  ports:
  - {name: webhook, port: 443, targetPort: webhook}
`
	return files
}

// TestFleetUpgradesManagersWaveByWave is issue 17's "upgrading the fleet's managers through waves" on the local
// fleet, whose sites run Argo Rollouts: site A is wave "first" (soak 10s), site B in the implicit last wave.
// Once the first delivery is Healthy on both (a Rollout's first revision is promoted at once), an image bump in
// base/:
//  1. reaches A only: A's Rollout pauses with the new image as its preview, Argo CD reports the site's
//     Application and the Rollout Suspended, SiteSync shows managerRollout Suspended and a rollout that waits on
//     wave first, and B's rendered folder and cluster objects stay as they were;
//  2. `kubectl argo rollouts promote` on A makes it Healthy; after the soak B gets the bump and pauses too;
//  3. promote on B: both Healthy, the rollout Complete.
//
// It runs beside other tests, on two site clusters of its own.
func TestFleetUpgradesManagersWaveByWave(t *testing.T) {
	t.Parallel()
	sites := ownSites(t, "upgrade-a", "upgrade-b")
	a, b := sites[0], sites[1]
	const v1, v2 = "ghcr.io/siteops/manager:v0.1.0", "ghcr.io/siteops/manager:v0.2.0"
	const soak = 10 * time.Second
	f := newFleetFrom(t, "upgrade-fleet", managerRolloutSource(sites, v1), fmt.Sprintf(`waves:
- name: first
  sites: [%s]
  soak: %s
`, a, soak))
	waitFor(t, time.Minute, "manager Ready", func() (bool, string) { return f.mgr.Ready(), "" })

	waitFor(t, 6*time.Minute, "first rollout Complete, "+
		"both sites Delivered with their manager Healthy", func() (bool, string) {
		got := f.rollout("phase") + " " + f.site(a, "delivery", "managerRollout") + " " +
			f.site(b, "delivery", "managerRollout")
		return got == "Complete Delivered|Healthy Delivered|Healthy", got + " " + f.rollout("message")
	})
	for _, s := range []string{a, b} {
		if got := managerOnSite(s, "{.status.phase}|{.spec.template.spec.containers[0].image}"); got != "Healthy|"+v1 {
			t.Fatalf("cluster %s's manager Rollout: %q, want Healthy on %s", s, got, v1)
		}
	}
	f.transcript("the fleet's managers on " + v1)

	// 1. The bump reaches wave first (A) only; A's Rollout pauses on its preview and the wave waits for it.
	rvB, folderB := f.managerObjectsOf(b), f.renderedFolder(b)
	editFile(t, f.work, "base/manager.yaml", "image: "+v1, "image: "+v2)
	bump := f.push("base: manager " + v2)
	toA := f.renderedHead()
	waitFor(t, 3*time.Minute, a+"'s manager Rollout paused on its "+v2+" preview", func() (bool, string) {
		got := managerOnSite(a,
			"{.status.phase}|{.status.pauseConditions[*].reason}|{.spec.template.spec.containers[0].image}")
		return got == "Paused|BlueGreenPause|"+v2, got
	})
	if active, preview := managerOnSite(a, "{.status.blueGreen.activeSelector}"),
		managerOnSite(a, "{.status.blueGreen.previewSelector}"); active == "" || active == preview {
		t.Fatalf("cluster %s's paused Rollout has active %q and preview %q, want two colours", a, active, preview)
	}
	waitFor(t, 2*time.Minute, "Argo CD and SiteSync report "+a+" Suspended, "+
		"wave first waiting for it", func() (bool, string) {
		app := jsonpath("-n", "argocd", "get", "application", "siteops-"+a, "-o",
			"jsonpath={.status.sync.status}|{.status.health.status}")
		got := app + " " + f.site(a, "renderedCommit", "health", "managerRollout", "delivery") + " " +
			f.rollout("revision", "phase", "wave") + " " + f.rolloutSite(a, "state", "waitingFor") + " " +
			f.rolloutSite(b, "state", "waitingFor")
		want := "Synced|Suspended " + toA + "|Suspended|Suspended|Pending " + bump + "|Progressing|first " +
			"Published|Argo CD: Synced and Healthy (now Pending) Pending|wave first"
		return got == want, got + " " + f.rollout("message")
	})
	if got := f.site(a, "deliveryMessage"); got != "Rollout siteops-manager: BlueGreenPause" {
		t.Fatalf("%s's delivery message %q, want the paused Rollout's", a, got)
	}
	f.checkManagerUntouched(b, rvB, folderB, "while "+a+"'s manager waits for promote")
	f.transcript("wave first: " + a + "'s manager paused on its preview")
	f.rolloutsGet(a, "before promote")

	// 2. Promote at A: A Healthy on v2, then (after the soak) B gets the bump and pauses in turn.
	f.rolloutsPromote(a)
	// A's soak runs from when it became Delivered (status.sites[].since), read in the same snapshot that shows
	// it Healthy: status.rollout's soakUntil is written only if a reconcile falls inside the soak, which on a
	// slow machine it may not.
	var soakEnd time.Time
	waitFor(t, 2*time.Minute, a+"'s manager Healthy on "+v2, func() (bool, string) {
		got := managerOnSite(a, "{.status.phase}|{.spec.template.spec.containers[0].image}") + " " +
			f.site(a, "managerRollout", "delivery", "since")
		healthy, since, _ := strings.Cut(got, " Healthy|Delivered|")
		if healthy != "Healthy|"+v2 {
			return false, got
		}
		at, err := time.Parse(time.RFC3339, since)
		soakEnd = at.Add(soak)
		return err == nil, got
	})
	f.rolloutsGet(a, "after promote")
	// B is untouched while A soaks; when this test looks after the soak (a slow machine), B's publish time
	// below shows it came after the soak.
	if time.Now().Before(soakEnd) {
		f.checkManagerUntouched(b, rvB, folderB, "before "+a+" has soaked")
	}
	waitFor(t, 3*time.Minute, b+" gets "+short(bump)+" after "+a+" soaked, its manager paused", func() (bool, string) {
		got := managerOnSite(b, "{.status.phase}|{.spec.template.spec.containers[0].image}") + " " +
			f.site(b, "managerRollout") + " " + f.rollout("revision", "phase", "wave") + " " + f.rolloutSite(b, "state")
		return got == "Paused|"+v2+" Suspended "+bump+"|Progressing|"+gitopsv1alpha1.ImplicitWave+" Published",
			got + " " + f.rollout("message")
	})
	if published, err := time.Parse(time.RFC3339, f.rolloutSite(b, "publishedAt")); err != nil ||
		published.Before(soakEnd) {
		t.Fatalf("%s published at %q, want at or after %s's soak end %s (%v)", b, f.rolloutSite(b, "publishedAt"), a,
			soakEnd.Format(time.RFC3339), err)
	}
	toB := f.siteField(b, "renderedCommit")
	if toB == toA || f.isAncestor(toB, toA) {
		t.Fatalf("%s's rendered commit %s is not after %s's %s", b, short(toB), a, short(toA))
	}
	f.transcript("wave " + gitopsv1alpha1.ImplicitWave + ": " + b + "'s manager paused on its preview")

	// 3. Promote at B: both Healthy on v2, the rollout Complete.
	f.rolloutsPromote(b)
	waitFor(t, 3*time.Minute, "rollout of "+short(bump)+" Complete, both managers Healthy on "+v2, func() (bool, string) {
		got := f.rollout("revision", "phase") + " " + f.site(a, "managerRollout", "delivery") + " " +
			f.site(b, "managerRollout", "delivery")
		return got == bump+"|Complete Healthy|Delivered Healthy|Delivered", got + " " + f.rollout("message")
	})
	for _, s := range []string{a, b} {
		if got := managerOnSite(s, "{.status.phase}|{.spec.template.spec.containers[0].image}"); got != "Healthy|"+v2 {
			t.Fatalf("cluster %s's manager Rollout: %q, want Healthy on %s", s, got, v2)
		}
	}
	f.waitDelivered(time.Minute, map[string]string{a: toA, b: toB})
	f.rolloutsGet(b, "after promote")
	f.transcript("the fleet's managers on " + v2)
}

// managerOnSite is a jsonpath of the site's siteops-manager Rollout, or "" when it is missing.
func managerOnSite(site, path string) string {
	return onSite(site, "-n", managerSystem, "get", "rollout", "siteops-manager", "-o", "jsonpath="+path)
}

// managerObjectsOf lists the site cluster's Rollouts, Services and ConfigMaps in siteops-system with their
// resourceVersions.
func (f *fleet) managerObjectsOf(site string) string {
	f.t.Helper()
	out := onSite(site, "-n", managerSystem, "get", "rollout,svc,cm", "-o",
		"jsonpath={range .items[*]}{.kind}/{.metadata.name}={.metadata.resourceVersion} {end}")
	if !strings.Contains(out, "Rollout/siteops-manager=") ||
		!strings.Contains(out, "Service/siteops-webhook-service-preview=") {
		f.t.Fatalf("cluster %s has %q, want the manager Rollout and its Services", site, out)
	}
	return out
}

// checkManagerUntouched fails the test when the site's manager objects or rendered folder changed.
func (f *fleet) checkManagerUntouched(site, rv, folder, when string) {
	f.t.Helper()
	if got := f.managerObjectsOf(site); got != rv {
		f.t.Fatalf("cluster %s changed %s: resourceVersions %s, then %s", site, when, rv, got)
	}
	if got := f.renderedFolder(site); got != folder {
		f.t.Fatalf("%s's rendered folder changed %s:\n%s\nwas:\n%s", site, when, got, folder)
	}
}

// rolloutsGet logs `kubectl argo rollouts get rollout siteops-manager` on the site (the plugin on PATH).
func (f *fleet) rolloutsGet(site, when string) {
	f.t.Helper()
	f.t.Logf("%s, %s:\n$ kubectl argo rollouts get rollout siteops-manager -n %s --kubeconfig %s.kubeconfig\n%s",
		site, when, managerSystem, site, kubectl(f.t, "argo", "rollouts", "get", "rollout", "siteops-manager",
			"-n", managerSystem, "--kubeconfig", siteKubeconfig(site), "--no-color"))
}

// rolloutsPromote runs `kubectl argo rollouts promote siteops-manager` on the site.
func (f *fleet) rolloutsPromote(site string) {
	f.t.Helper()
	f.t.Logf("$ kubectl argo rollouts promote siteops-manager -n %s --kubeconfig %s.kubeconfig\n%s", managerSystem, site,
		kubectl(f.t, "argo", "rollouts", "promote", "siteops-manager", "-n", managerSystem,
			"--kubeconfig", siteKubeconfig(site)))
}
