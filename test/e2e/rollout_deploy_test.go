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
	"path/filepath"
	"testing"
	"time"

	"github.com/siteops/siteops/test/testenv"
)

// deployUpgradeRun is the first step of a pod-backed upgrade scenario: the harness backs the manager pods
// (a pod whose image tag is a key of binaries runs that build), this checkout's base/ and overlays/ with
// routeLocalToPods' patches are rendered to branch rendered of <app>.git, and Argo CD's Application app syncs
// it. It waits until the Rollout is Healthy, the first pod's manager leads and the samples are reconciled, and
// returns the run with that pod and its hash. The Application, the webhook configurations and the Rollout go
// when the test ends.
func deployUpgradeRun(t *testing.T, app string, binaries map[string]string, scaleDelay int) (u *upgradeRun,
	blue, blueHash string) {
	t.Helper()
	// A Rollout left by an earlier test would make this sync an update instead of a first deploy.
	_, _ = tryKubectl("-n", "argocd", "delete", "application", "siteops-local", "--ignore-not-found")
	_, _ = tryKubectl("-n", upgradeSystem, "delete", "rollout", "siteops-manager", "--ignore-not-found", "--wait=true")
	waitFor(t, time.Minute, "no manager pods left", func() (bool, string) {
		out := jsonpath("-n", upgradeSystem, "get", "pods", "-l", managerSelector, "-o", "name")
		return out == "", out
	})
	pb := startPodBacked(t, binaries)
	u = &upgradeRun{t: t, pb: pb, app: app, work: t.TempDir(), rendered: t.TempDir(),
		bare: filepath.Join(cluster.gitRoot, app+".git"), leases: watchLeaseHolders(t, pb.client)}
	testenv.CopyCheckout(t, u.work, "base", "overlays")
	routeLocalToPods(t, u.work, pb, scaleDelay)
	git(t, cluster.gitRoot, "init", "-q", "--bare", "-b", "main", u.bare)
	git(t, u.work, "init", "-q", "-b", "main")
	git(t, u.work, "add", ".")
	git(t, u.work, "commit", "-qm", "siteops sites, manager pods backed by processes")
	git(t, u.rendered, "init", "-q", "-b", "rendered")
	renderLocal(t, u.work, u.rendered, u.bare)

	apply(t, "argocd", fmt.Sprintf(`
apiVersion: argoproj.io/v1alpha1
kind: Application
metadata: {name: %s}
spec:
  project: default
  source: {repoURL: "%s/%s.git", targetRevision: rendered, path: local}
  destination: {server: "https://kubernetes.default.svc", namespace: %s}
  syncPolicy:
    automated: {prune: true, selfHeal: true}
    syncOptions: [CreateNamespace=true, SkipDryRunOnMissingResource=true]
    # The CronJob sample is admitted only once the first pod's manager serves the webhooks: retry until then.
    retry: {limit: 20, backoff: {duration: 5s, factor: 1, maxDuration: 5s}}
`, app, cluster.gitDaemon, app, upgradeSystem))
	t.Cleanup(func() {
		// Later tests start managers of their own: no Argo CD hold, no webhooks to this test's proxy, no pods
		// left that no harness backs.
		_, _ = tryKubectl("-n", "argocd", "delete", "application", app)
		_, _ = tryKubectl("delete", "mutatingwebhookconfiguration", "siteops-mutating-webhook-configuration",
			"--ignore-not-found")
		_, _ = tryKubectl("delete", "validatingwebhookconfiguration", "siteops-validating-webhook-configuration",
			"--ignore-not-found")
		_, _ = tryKubectl("-n", upgradeSystem, "delete", "rollout", "siteops-manager", "--ignore-not-found")
	})
	waitFor(t, 4*time.Minute, "manager Rollout Healthy "+
		"with the active Service on its stable ReplicaSet", func() (bool, string) {
		st := u.rollout("{.status.phase}/{.status.stableRS}/{.status.availableReplicas}")
		return st == "Healthy/"+u.active()+"/1" && u.active() != "", st + " active=" + u.active()
	})
	blueHash = u.active()
	blue = podOf(blueHash)
	u.leads(blue, 2*time.Minute)
	if pb.Process(blue) == nil {
		t.Fatalf("no process for pod %s", blue)
	}
	waitFor(t, 2*time.Minute, "Guestbook and CronJob samples reconciled", func() (bool, string) {
		got := jsonpath("-n", upgradeSamples, "get", "guestbook", "guestbook-sample", "-o",
			"jsonpath={.status.readyReplicas}")
		return got != "" && got != "0", got
	})
	// The samples may be an earlier test's, left with another spec (Applications are deleted without
	// cascade): record their generations once Argo CD has brought them to this test's.
	waitFor(t, 3*time.Minute, "Application "+app+" Synced, its last sync Succeeded", func() (bool, string) {
		got := jsonpath("-n", "argocd", "get", "application", app, "-o",
			"jsonpath={.status.sync.status}/{.status.operationState.phase}")
		return got == "Synced/Succeeded", got
	})
	u.gens = generations(t, upgradeSamples)
	return u, blue, blueHash
}
