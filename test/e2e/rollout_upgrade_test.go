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
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/siteops/siteops/test/testenv"
)

// TestUpgradeDrivenByArgoRollouts is the manager's blue/green upgrade with every manager a pod of the Rollout:
// test/podproc runs a real bin/manager for each pod kwok binds, with the pod's name and pod-template hash,
// writes its /readyz into the pod's Ready condition, restarts a process that dies in a pod that stays (the
// kubelet's part), SIGTERMs it when the pod goes, and plays kube-proxy for the active Service's webhook port
// and the preview Service's shadow port. The test itself starts and stops no manager:
//  1. Argo CD syncs the local site (rendered by the siteops CLI); the Rollout's first pod leads;
//  2. an image bump pauses the Rollout with a preview pod whose manager stands by; the pre-promotion analysis
//     reads the preview's shadow report through the preview Service (HTTPS, shadow-reader token);
//  3. the active pod's process is SIGKILLed while paused: the preview neither leads nor writes, and the active
//     colour leads again once its process is restarted in the same pod (killActiveWhilePaused);
//  4. `kubectl argo rollouts abort`: the active colour keeps leading, the preview pod goes; the bump is reverted
//     in Git (abortPaused);
//  5. the bump again, then `kubectl argo rollouts promote`: the new pod's manager takes the Lease while the old
//     pod's process still runs; Argo Rollouts scales the old pod down after scaleDownDelaySeconds and the
//     harness SIGTERMs its process (promote);
//  6. `kubectl argo rollouts undo`, with Argo CD's auto-sync off: a preview of the previous template, then
//     promote moves leadership back the same way (undo).
//
// No step changes a Guestbook or CronJob spec.
//
// It runs beside other tests, holding the hub's manager Rollout, webhooks and main-shard Lease (hubManager):
// the Lease's holders must be this Rollout's pods only.
func TestUpgradeDrivenByArgoRollouts(t *testing.T) {
	t.Parallel()
	hold(t, &hubManager)
	const scaleDelay = 20
	// A Rollout left by an earlier test would make this sync an update instead of a first deploy.
	_, _ = tryKubectl("-n", "argocd", "delete", "application", "siteops-local", "--ignore-not-found")
	_, _ = tryKubectl("-n", upgradeSystem, "delete", "rollout", "siteops-manager", "--ignore-not-found", "--wait=true")
	waitFor(t, time.Minute, "no manager pods left", func() (bool, string) {
		out := jsonpath("-n", upgradeSystem, "get", "pods", "-l", managerSelector, "-o", "name")
		return out == "", out
	})
	pb := startPodBacked(t)
	u := &upgradeRun{t: t, pb: pb, work: t.TempDir(), rendered: t.TempDir(),
		bare: filepath.Join(cluster.gitRoot, "siteops-pods.git"), leases: watchLeaseHolders(t, pb.client)}
	testenv.CopyCheckout(t, u.work, "base", "overlays")
	routeLocalToPods(t, u.work, pb, scaleDelay)
	git(t, cluster.gitRoot, "init", "-q", "--bare", "-b", "main", u.bare)
	git(t, u.work, "init", "-q", "-b", "main")
	git(t, u.work, "add", ".")
	git(t, u.work, "commit", "-qm", "siteops sites, manager pods backed by processes")
	git(t, u.rendered, "init", "-q", "-b", "rendered")
	renderLocal(t, u.work, u.rendered, u.bare)

	// 1. Argo CD syncs; the first pod's manager leads.
	apply(t, "argocd", fmt.Sprintf(`
apiVersion: argoproj.io/v1alpha1
kind: Application
metadata: {name: siteops-pods}
spec:
  project: default
  source: {repoURL: "%s/siteops-pods.git", targetRevision: rendered, path: local}
  destination: {server: "https://kubernetes.default.svc", namespace: %s}
  syncPolicy:
    automated: {prune: true, selfHeal: true}
    syncOptions: [CreateNamespace=true, SkipDryRunOnMissingResource=true]
    # The CronJob sample is admitted only once the first pod's manager serves the webhooks: retry until then.
    retry: {limit: 20, backoff: {duration: 5s, factor: 1, maxDuration: 5s}}
`, cluster.gitDaemon, upgradeSystem))
	t.Cleanup(func() {
		// Later tests start managers of their own: no Argo CD hold, no webhooks to this test's proxy, no pods
		// left that no harness backs.
		_, _ = tryKubectl("-n", "argocd", "delete", "application", "siteops-pods")
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
	blueHash := u.active()
	blue := podOf(blueHash)
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
	waitFor(t, 3*time.Minute, "Application siteops-pods Synced, its last sync Succeeded", func() (bool, string) {
		got := jsonpath("-n", "argocd", "get", "application", "siteops-pods", "-o",
			"jsonpath={.status.sync.status}/{.status.operationState.phase}")
		return got == "Synced/Succeeded", got
	})
	u.gens = generations(t, upgradeSamples)

	// 2. An image bump: the Rollout pauses with a preview pod; its analysis reads the preview's report.
	u.setTag("v0.1.0", "v0.2.0")
	greenHash, green := u.pausedOnPreview(blueHash)
	if got := admit(t, pb); got != blue {
		t.Fatalf("admission reached pod %q during the paused upgrade, want the active pod %q", got, blue)
	}
	u.specsUnchanged("paused on the preview")

	// 3. The active colour killed while paused; 4. abort, and the bump reverted in Git.
	u.killActiveWhilePaused(blue, blueHash, green, greenHash)
	u.abortPaused(blue, blueHash, green, greenHash)

	// 5. The bump again; promote: the new pod's manager leads while the old one still runs.
	u.setTag("v0.1.0", "v0.2.0")
	hash, green := u.pausedOnPreview(blueHash)
	if hash != greenHash {
		t.Fatalf("the bump again made a preview of template %s, want %s as the first time", hash, greenHash)
	}
	u.promote(blue, blueHash, green, greenHash)
	u.specsUnchanged("after promote")

	// 6. Undo: leadership moves back to the previous template's colour at promote.
	u.undo(green, greenHash, blueHash)
}

// admit sends a CronJob create through admission (a server-side dry run) and returns the pod whose process the
// active Service's proxy sent the last webhook connection to. The apiserver keeps webhook connections alive,
// and like kube-proxy the proxy leaves an established connection to its pod: after a promote the old colour
// answers on it until it closes.
func admit(t *testing.T, pb *podBacked) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(testenv.RepoRoot(), "base", "samples", "batch_v1_cronjob.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	probe := strings.Replace(string(b), "name: cronjob-sample", "name: e2e-admission-probe", 1)
	if out, err := tryKubectlIn(probe, "-n", "siteops-samples", "create", "--dry-run=server", "-f", "-"); err != nil {
		t.Fatalf("a CronJob through admission: %v\n%s", err, out)
	}
	return pb.webhook.LastPod()
}

// exited reports whether ch is closed.
func exited(ch <-chan struct{}) bool {
	select {
	case <-ch:
		return true
	default:
		return false
	}
}
