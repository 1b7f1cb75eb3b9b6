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

	"github.com/siteops/siteops/test/managerproc"
	"github.com/siteops/siteops/test/testenv"
)

// TestGitOpsPushToOverlayReachesClusterAndUpgradesBlueGreen is the used-by flow end to end on the local
// cluster, with real Argo CD, Argo Rollouts, kube-controller-manager, kwok and Git:
//  1. a Git repository (served by git daemon) holds a copy of this checkout's base/ and overlays/; a SiteSync
//     renders it to the rendered branch; an Argo CD Application syncs the local site's folder; CRDs, RBAC, the
//     manager Rollout, the Guestbook and CronJob samples reach Synced/Healthy;
//  2. a push changing the Guestbook size in overlays/local/site-values.yaml, announced by a signed push webhook,
//     becomes a rendered commit naming the pushed SHA, Argo CD syncs it and the Guestbook runs at the new size;
//  3. a push changing the manager image in the overlay pauses the Rollout with a preview ReplicaSet while the
//     active Service keeps the old pods; the pre-promotion analysis, run by the real Argo Rollouts controller,
//     reads the shadow report of a standby manager (green, on the host, where the kwok pods' binary would run)
//     and succeeds; `kubectl argo rollouts promote` switches the active Service;
//  4. once green's shadow report shows unexpected writes (a Guestbook whose Deployment a ResourceQuota
//     forbids: green keeps wanting to create it), a further bump fails its analysis and is aborted without a
//     promote: the active Service stays, and no Guestbook or CronJob spec changes across both upgrades.
//
// It runs beside other tests, holding the hub's manager Rollout, webhooks and main-shard Lease (hubManager).
func TestGitOpsPushToOverlayReachesClusterAndUpgradesBlueGreen(t *testing.T) {
	t.Parallel()
	hold(t, &hubManager)
	const (
		token   = "e2e-receiver-token-7f3a"
		samples = "siteops-samples"
		system  = "siteops-system"
	)
	// TestMain installed the CRDs (the manager watches their kinds); Argo CD adopts them (server-side apply).
	certDir, caBundle := webhookCerts(t)
	webhookPort := freePort(t)
	mgr := startManager(t, "gitops", "--enable-webhooks=true", fmt.Sprintf("--webhook-port=%d", webhookPort),
		"--webhook-cert-dir="+certDir)
	waitFor(t, 60*time.Second, "manager Ready", func() (bool, string) { return mgr.Ready(), "" })

	// The preview colour's shadow report comes from green, a standby manager on the host (same lease as mgr),
	// started in step 3 on this port.
	greenShadowPort := freePort(t)

	// The source repository: this checkout's base/ and overlays/, with the local site's webhook and shadow
	// report routing.
	work := t.TempDir()
	testenv.CopyCheckout(t, work, "base", "overlays")
	writeFile(t, work, "overlays/local/webhook-mutating.yaml", webhookRouting("mutate", webhookPort, caBundle))
	writeFile(t, work, "overlays/local/webhook-validating.yaml", webhookRouting("validate", webhookPort, caBundle))
	writeFile(t, work, "overlays/local/analysis-standby-report.yaml", shadowReportRouting(greenShadowPort))
	bare := pushSource(t, work, "siteops", "siteops sites")

	kubectl(t, "create", "namespace", "hub")
	kubectl(t, "-n", "hub", "create", "secret", "generic", "receiver", "--from-literal=token="+token)
	apply(t, "hub", fmt.Sprintf(`
apiVersion: gitops.siteops.dev/v1alpha1
kind: SiteSync
metadata: {name: sites}
spec:
  source: {url: "file://%s", ref: main}
  target: {branch: rendered}
  interval: 10m
  receiver: {secretRef: {name: receiver}}
`, bare))
	rendered := func() string {
		return jsonpath("-n", "hub", "get", "sitesync", "sites", "-o", "jsonpath={.status.renderedRevision}")
	}
	// The first sync clones, renders and validates the product's own base/ (seconds alone). On a loaded machine
	// it can outlast spec.timeout (2m) once; the SiteSync then retries, so the wait covers a second attempt.
	waitFor(t, 5*time.Minute, "first rendered commit", func() (bool, string) {
		return rendered() != "", jsonpath("-n", "hub", "get", "sitesync", "sites", "-o", "jsonpath={.status.conditions}")
	})
	t.Logf("sitesync:\n%s", kubectl(t, "-n", "hub", "get", "sitesync", "-o", "wide"))

	// 1. Argo CD syncs the local site from the rendered branch.
	apply(t, "argocd", fmt.Sprintf(`
apiVersion: argoproj.io/v1alpha1
kind: Application
metadata:
  name: siteops-local
  # The labels tie the Application to SiteSync hub/sites' site "local", as base/argocd's ApplicationSet does.
  labels: {gitops.siteops.dev/sitesync: sites, gitops.siteops.dev/site: local}
spec:
  project: default
  source: {repoURL: "%s/siteops.git", targetRevision: rendered, path: local}
  destination: {server: "https://kubernetes.default.svc", namespace: %s}
  syncPolicy:
    automated: {prune: true, selfHeal: true}
    syncOptions: [CreateNamespace=true, SkipDryRunOnMissingResource=true]
`, cluster.gitDaemon, system))
	t.Cleanup(func() {
		// Later tests run managers of their own: keep the CRDs and samples, but end Argo CD's hold on this install
		// (the Application has no cascade finalizer) and remove the webhooks that point at this test's manager.
		_, _ = tryKubectl("-n", "argocd", "delete", "application", "siteops-local")
		_, _ = tryKubectl("delete", "mutatingwebhookconfiguration", "siteops-mutating-webhook-configuration",
			"--ignore-not-found")
		_, _ = tryKubectl("delete", "validatingwebhookconfiguration", "siteops-validating-webhook-configuration",
			"--ignore-not-found")
	})
	app := func() string {
		return jsonpath("-n", "argocd", "get", "application", "siteops-local", "-o",
			"jsonpath={.status.sync.status}/{.status.health.status}")
	}
	waitFor(t, 4*time.Minute, "siteops-local Synced/Healthy", func() (bool, string) {
		return app() == "Synced/Healthy", app() + " " +
			jsonpath("-n", "argocd", "get", "application", "siteops-local", "-o", "jsonpath={.status.operationState.message}")
	})
	for _, obj := range []string{"crd/cronjobs.batch.tutorial.kubebuilder.io", "clusterrole/siteops-manager-role",
		"-n " + system + " rollout/siteops-manager", "-n " + samples + " guestbook/guestbook-sample",
		"-n " + samples + " cronjobs.batch.tutorial.kubebuilder.io/cronjob-sample"} {
		kubectl(t, append([]string{"get"}, strings.Fields(obj)...)...)
	}
	guestbookReady := func(n string) func() (bool, string) {
		return func() (bool, string) {
			got := jsonpath("-n", samples, "get", "guestbook", "guestbook-sample", "-o",
				"jsonpath={.status.readyReplicas}/{.status.active}")
			return strings.HasPrefix(got, n+"/") && !strings.HasSuffix(got, "/"), got
		}
	}
	waitFor(t, 4*time.Minute, "Guestbook reconciled at size 1", guestbookReady("1"))

	// 2. A push to the site overlay reaches the cluster.
	editFile(t, work, "overlays/local/site-values.yaml", "size: 1", "size: 3")
	sizeSHA := commitAndPush(t, work, bare, "local: guestbook size 3")
	pushWebhook(t, mgr.receiverPort, "hub", "sites", token, "refs/heads/main", sizeSHA)
	waitRendered(t, bare, sizeSHA)
	refreshApp(t)
	waitFor(t, 6*time.Minute, "Guestbook reconciled at size 3", guestbookReady("3"))

	// 3. A push bumping the manager image: preview, promote.
	phase := func() string {
		return jsonpath("-n", system, "get", "rollout", "siteops-manager", "-o", "jsonpath={.status.phase}")
	}
	// Stable first: an update that lands before the first revision is stable is an "initial deploy" and
	// Argo Rollouts promotes it without a pause.
	waitFor(t, 2*time.Minute, "manager Rollout Healthy "+
		"with the active Service on its stable ReplicaSet", func() (bool, string) {
		st := jsonpath("-n", system, "get", "rollout", "siteops-manager", "-o",
			"jsonpath={.status.phase}/{.status.stableRS}/{.status.currentPodHash}/{.status.availableReplicas}")
		svc := jsonpath("-n", system, "get", "svc", "siteops-webhook-service", "-o",
			"jsonpath={.spec.selector.rollouts-pod-template-hash}")
		f := strings.Split(st, "/")
		return len(f) == 4 && f[0] == "Healthy" && f[1] != "" && f[1] == f[2] && f[2] == svc && f[3] == "1",
			st + " active=" + svc
	})
	oldHash := jsonpath("-n", system, "get", "rollout", "siteops-manager", "-o", "jsonpath={.status.currentPodHash}")
	gens := generations(t, samples)
	// Green starts once the samples are settled, as a new colour would: a standby that shadows converged objects.
	green := startManager(t, "green", fmt.Sprintf("--standby-bind-address=127.0.0.1:%d", greenShadowPort))
	waitFor(t, 60*time.Second, "green Ready in shadow mode", func() (bool, string) {
		return green.Ready() && managerproc.StandbyMode(greenShadowPort) == "standby",
			managerproc.StandbyMode(greenShadowPort)
	})
	bumpImage(t, work, bare, mgr.receiverPort, token, "v0.1.0", "v0.2.0")
	waitFor(t, 3*time.Minute, "Rollout Paused with a preview ReplicaSet", func() (bool, string) {
		preview := jsonpath("-n", system, "get", "rollout", "siteops-manager", "-o",
			"jsonpath={.status.blueGreen.previewSelector}")
		return phase() == "Paused" && preview != "" && preview != oldHash, phase() + " preview=" + preview
	})
	active := func() string {
		return jsonpath("-n", system, "get", "svc", "siteops-webhook-service", "-o",
			"jsonpath={.spec.selector.rollouts-pod-template-hash}")
	}
	if active() != oldHash {
		t.Fatalf("active Service moved before promotion: %q, want %q", active(), oldHash)
	}
	newHash := jsonpath("-n", system, "get", "rollout", "siteops-manager", "-o", "jsonpath={.status.currentPodHash}")
	analysis := func() string {
		return jsonpath("-n", system, "get", "rollout", "siteops-manager", "-o",
			"jsonpath={.status.blueGreen.prePromotionAnalysisRunStatus.name}/"+
				"{.status.blueGreen.prePromotionAnalysisRunStatus.status}")
	}
	waitFor(t, 2*time.Minute, "pre-promotion analysis Successful", func() (bool, string) {
		return strings.HasSuffix(analysis(), "/Successful"), analysis() + " " + shadowReport(greenShadowPort)
	})
	passed := strings.TrimSuffix(analysis(), "/Successful")
	// SiteSync shows the person promoting that the site's manager Rollout waits for them: Argo CD reports it
	// Suspended through the site's Application.
	managerRollout := func() string {
		return jsonpath("-n", "hub", "get", "sitesync", "sites", "-o",
			`jsonpath={.status.sites[?(@.name=="local")].managerRollout}`)
	}
	waitFor(t, time.Minute, "SiteSync shows site local's manager Rollout Suspended", func() (bool, string) {
		return managerRollout() == "Suspended", managerRollout()
	})
	if active() != oldHash {
		t.Fatalf("active Service moved during the analysis: %q, want %q", active(), oldHash)
	}
	t.Logf("before promote:\n%s",
		kubectl(t, "argo", "rollouts", "-n", system, "get", "rollout", "siteops-manager", "--no-color"))
	t.Logf("$ kubectl argo rollouts promote siteops-manager\n%s",
		kubectl(t, "argo", "rollouts", "-n", system, "promote", "siteops-manager"))
	waitFor(t, 2*time.Minute, "active Service on the new ReplicaSet, Healthy", func() (bool, string) {
		return phase() == "Healthy" && active() == newHash, phase() + " active=" + active()
	})
	t.Logf("after promote:\n%s",
		kubectl(t, "argo", "rollouts", "-n", system, "get", "rollout", "siteops-manager", "--no-color"))
	waitFor(t, time.Minute, "SiteSync shows site local's manager Rollout Healthy", func() (bool, string) {
		return managerRollout() == "Healthy", managerRollout()
	})

	// 4. Green's shadow report shows a write it keeps wanting; a further bump fails its analysis and is aborted:
	// the active colour stays and no Guestbook or CronJob spec changes.
	disagree(t, "e2e-shadow-disagree")
	waitFor(t, time.Minute, "green's shadow report shows unexpected writes", func() (bool, string) {
		return unexpectedWrites(greenShadowPort) > 0, shadowReport(greenShadowPort)
	})
	bumpImage(t, work, bare, mgr.receiverPort, token, "v0.2.0", "v0.3.0")
	waitFor(t, 3*time.Minute, "pre-promotion analysis of v0.3.0 Failed, Rollout aborted", func() (bool, string) {
		a := analysis()
		return phase() == "Degraded" && strings.HasSuffix(a, "/Failed") && !strings.HasPrefix(a, passed+"/"),
			phase() + " " + a
	})
	t.Logf("after the failed analysis:\n%s",
		kubectl(t, "argo", "rollouts", "-n", system, "get", "rollout", "siteops-manager", "--no-color"))
	waitFor(t, time.Minute, "SiteSync shows site local's manager Rollout Degraded", func() (bool, string) {
		return managerRollout() == "Degraded", managerRollout()
	})
	t.Logf("$ siteops status -n hub\n%s", siteopsStatus(t, "hub"))
	if active() != newHash {
		t.Fatalf("abort moved the active Service to %q, want %q", active(), newHash)
	}
	if after := generations(t, samples); after != gens {
		t.Fatalf("Guestbook/CronJob specs changed across upgrade and abort: before %s, after %s", gens, after)
	}
}

// commitAndPush commits every change in work and pushes main to bare; it returns the new commit.
func commitAndPush(t *testing.T, work, bare, msg string) string {
	t.Helper()
	git(t, work, "commit", "-qam", msg)
	git(t, work, "push", "-q", bare, "main")
	return git(t, work, "rev-parse", "HEAD")
}

// waitRendered waits for a commit on the rendered branch whose trailer names sha.
func waitRendered(t *testing.T, bare, sha string) {
	t.Helper()
	waitFor(t, 2*time.Minute, "rendered commit for "+sha[:8], func() (bool, string) {
		msg, err := gitOut(bare, "log", "-1", "--format=%B", "rendered")
		return err == nil && strings.Contains(msg, "Siteops-Source-Revision: "+sha), msg
	})
	msg, _ := gitOut(bare, "log", "-3", "--format=%h %s%n%b", "rendered")
	t.Logf("$ git log -3 rendered\n%s", msg)
}

// refreshApp asks Argo CD to look at the rendered branch now instead of at its next resync.
func refreshApp(t *testing.T) {
	t.Helper()
	refreshApplication(t, "siteops-local")
}

// refreshApplication asks Argo CD to look at Application name's source now.
func refreshApplication(t *testing.T, name string) {
	t.Helper()
	kubectl(t, "-n", "argocd", "annotate", "application", name, "argocd.argoproj.io/refresh=normal", "--overwrite")
}

// bumpImage changes the manager image tag in overlays/local, pushes, announces it and waits for the render.
func bumpImage(t *testing.T, work, bare string, receiverPort int, token, from, to string) {
	t.Helper()
	editFile(t, work, "overlays/local/kustomization.yaml", "newTag: "+from, "newTag: "+to)
	sha := commitAndPush(t, work, bare, "local: manager "+to)
	pushWebhook(t, receiverPort, "hub", "sites", token, "refs/heads/main", sha)
	waitRendered(t, bare, sha)
	refreshApp(t)
}

// generations returns the metadata.generation of every Guestbook and CronJob in ns, as one string.
func generations(t *testing.T, ns string) string {
	t.Helper()
	return kubectl(t, "-n", ns, "get", "guestbooks,cronjobs.batch.tutorial.kubebuilder.io", "-o",
		`jsonpath={range .items[*]}{.kind}/{.metadata.name}={.metadata.generation} {end}`)
}
