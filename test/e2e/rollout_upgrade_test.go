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
// writes its /readyz into the pod's Ready condition, SIGTERMs it when the pod goes, and plays kube-proxy for the
// active Service's webhook port and the preview Service's shadow port. The test itself starts and stops no
// manager:
//  1. Argo CD syncs the local site (rendered by the siteops CLI); the Rollout's first pod leads;
//  2. an image bump pauses the Rollout with a preview pod whose manager stands by; the pre-promotion analysis
//     reads the preview's shadow report through the preview Service (HTTPS, shadow-reader token); admission
//     reaches the active colour's process;
//  3. `kubectl argo rollouts promote`: the new pod's manager takes the Lease while the old pod's process still
//     runs; Argo Rollouts scales the old pod down after scaleDownDelaySeconds and the harness SIGTERMs its
//     process; no Guestbook or CronJob spec changes.
func TestUpgradeDrivenByArgoRollouts(t *testing.T) {
	const (
		system     = "siteops-system"
		samples    = "siteops-samples"
		scaleDelay = 20
	)
	// A Rollout left by an earlier test would make this sync an update instead of a first deploy.
	_, _ = tryKubectl("-n", "argocd", "delete", "application", "siteops-local", "--ignore-not-found")
	_, _ = tryKubectl("-n", system, "delete", "rollout", "siteops-manager", "--ignore-not-found", "--wait=true")
	waitFor(t, time.Minute, "no manager pods left", func() (bool, string) {
		out := jsonpath("-n", system, "get", "pods", "-l", managerSelector, "-o", "name")
		return out == "", out
	})
	pb := startPodBacked(t)

	work, rendered := t.TempDir(), t.TempDir()
	copyTree(t, work, "base", "overlays")
	routeLocalToPods(t, work, pb, scaleDelay)
	bare := filepath.Join(cluster.gitRoot, "siteops-pods.git")
	git(t, cluster.gitRoot, "init", "-q", "--bare", "-b", "main", bare)
	git(t, work, "init", "-q", "-b", "main")
	git(t, work, "add", ".")
	git(t, work, "commit", "-qm", "siteops sites, manager pods backed by processes")
	git(t, rendered, "init", "-q", "-b", "rendered")
	renderLocal(t, work, rendered, bare)

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
`, cluster.gitDaemon, system))
	t.Cleanup(func() {
		// Later tests start managers of their own: no Argo CD hold, no webhooks to this test's proxy, no pods
		// left that no harness backs.
		_, _ = tryKubectl("-n", "argocd", "delete", "application", "siteops-pods")
		_, _ = tryKubectl("delete", "mutatingwebhookconfiguration", "siteops-mutating-webhook-configuration", "--ignore-not-found")
		_, _ = tryKubectl("delete", "validatingwebhookconfiguration", "siteops-validating-webhook-configuration", "--ignore-not-found")
		_, _ = tryKubectl("-n", system, "delete", "rollout", "siteops-manager", "--ignore-not-found")
	})
	rollout := func(path string) string {
		return jsonpath("-n", system, "get", "rollout", "siteops-manager", "-o", "jsonpath="+path)
	}
	active := func() string {
		return jsonpath("-n", system, "get", "svc", "siteops-webhook-service", "-o", "jsonpath={.spec.selector.rollouts-pod-template-hash}")
	}
	waitFor(t, 4*time.Minute, "manager Rollout Healthy with the active Service on its stable ReplicaSet", func() (bool, string) {
		st := rollout("{.status.phase}/{.status.stableRS}/{.status.availableReplicas}")
		return st == "Healthy/"+active()+"/1" && active() != "", st + " active=" + active()
	})
	oldHash := active()
	oldPod := podOf(oldHash)
	waitFor(t, 2*time.Minute, "the first pod's manager holds the Lease", func() (bool, string) {
		return oldPod != "" && strings.HasPrefix(leaseHolder(), oldPod+"_"), "pod " + oldPod + " holder " + leaseHolder()
	})
	blue := pb.Process(oldPod)
	if blue == nil {
		t.Fatalf("no process for pod %s", oldPod)
	}
	waitFor(t, 2*time.Minute, "Guestbook and CronJob samples reconciled", func() (bool, string) {
		got := jsonpath("-n", samples, "get", "guestbook", "guestbook-sample", "-o", "jsonpath={.status.readyReplicas}")
		return got != "" && got != "0", got
	})
	gens := generations(t, samples)

	// 2. An image bump: the Rollout pauses with a preview pod; its analysis reads the preview's report.
	editFile(t, work, "overlays/local/kustomization.yaml", "newTag: v0.1.0", "newTag: v0.2.0")
	git(t, work, "commit", "-qam", "local: manager v0.2.0")
	renderLocal(t, work, rendered, bare)
	refreshApplication(t, "siteops-pods")
	waitFor(t, 3*time.Minute, "Rollout Paused with a Ready preview pod", func() (bool, string) {
		preview := rollout("{.status.blueGreen.previewSelector}")
		return rollout("{.status.phase}") == "Paused" && preview != "" && preview != oldHash && podOf(preview) != "",
			rollout("{.status.phase}") + " preview=" + preview
	})
	newHash := rollout("{.status.blueGreen.previewSelector}")
	newPod := podOf(newHash)
	analysis := func() string {
		return rollout("{.status.blueGreen.prePromotionAnalysisRunStatus.name}/{.status.blueGreen.prePromotionAnalysisRunStatus.status}")
	}
	waitFor(t, 2*time.Minute, "pre-promotion analysis Successful", func() (bool, string) {
		return strings.HasSuffix(analysis(), "/Successful"), analysis()
	})
	if got := pb.shadow.LastPod(); got != newPod {
		t.Fatalf("the analysis read the shadow report of pod %q, want the preview pod %q", got, newPod)
	}
	if h := leaseHolder(); !strings.HasPrefix(h, oldPod+"_") || active() != oldHash {
		t.Fatalf("before promote: Lease holder %q, active %q; want pod %s and hash %s", h, active(), oldPod, oldHash)
	}
	if got := admit(t, pb); got != oldPod {
		t.Fatalf("admission reached pod %q during the paused upgrade, want the active pod %q", got, oldPod)
	}
	t.Logf("before promote:\n%s", kubectl(t, "argo", "rollouts", "-n", system, "get", "rollout", "siteops-manager", "--no-color"))
	t.Logf("Lease holder before promote: %s", leaseHolder())

	// 3. Promote: the new pod's manager leads while the old one still runs; the old pod goes after the delay.
	t.Logf("$ kubectl argo rollouts promote siteops-manager\n%s", kubectl(t, "argo", "rollouts", "-n", system, "promote", "siteops-manager"))
	waitFor(t, time.Minute, "the new pod's manager holds the Lease", func() (bool, string) {
		return strings.HasPrefix(leaseHolder(), newPod+"_"), leaseHolder()
	})
	if blue.Terminated() {
		t.Fatalf("the old pod's process was stopped before the new pod's manager led")
	}
	t.Logf("Lease holder after promote: %s (old pod %s's process still running, pid %d)", leaseHolder(), oldPod, blue.Pid())
	t.Logf("after promote:\n%s", kubectl(t, "argo", "rollouts", "-n", system, "get", "rollout", "siteops-manager", "--no-color"))
	waitFor(t, 2*time.Minute, "admission reaches the new pod's process", func() (bool, string) {
		got := admit(t, pb)
		return got == newPod, got
	})
	waitFor(t, 2*time.Minute, "old pod scaled down and its process SIGTERMed by the harness", func() (bool, string) {
		return blue.Terminated() && exited(blue.Exited()) && podOf(oldHash) == "", fmt.Sprintf("terminated=%t pod=%q", blue.Terminated(), podOf(oldHash))
	})
	waitFor(t, time.Minute, "Rollout Healthy on the new ReplicaSet", func() (bool, string) {
		return rollout("{.status.phase}") == "Healthy" && active() == newHash, rollout("{.status.phase}") + " active=" + active()
	})
	t.Logf("after scale-down:\n%s", kubectl(t, "argo", "rollouts", "-n", system, "get", "rollout", "siteops-manager", "--no-color"))
	if after := generations(t, samples); after != gens {
		t.Fatalf("Guestbook/CronJob specs changed across the upgrade: before %s, after %s", gens, after)
	}
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
