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
)

// TestClusterSmokeDeploymentPodsReady shows kube-controller-manager, kube-scheduler and kwok working together:
// a Deployment's pods are created, bound and become Ready.
func TestClusterSmokeDeploymentPodsReady(t *testing.T) {
	t.Parallel()
	kubectl(t, "create", "namespace", "smoke-deploy")
	kubectl(t, "-n", "smoke-deploy", "create", "deployment", "web", "--image=nginx:1.27-alpine", "--replicas=3")
	kubectl(t, "-n", "smoke-deploy", "rollout", "status", "deployment/web", "--timeout=120s")
	ready := jsonpath("-n", "smoke-deploy", "get", "deployment", "web", "-o", "jsonpath={.status.readyReplicas}")
	if ready != "3" {
		t.Fatalf("readyReplicas = %q, want 3", ready)
	}
	nodes := jsonpath("-n", "smoke-deploy", "get", "pods", "-o", "jsonpath={.items[*].spec.nodeName}")
	for _, n := range strings.Fields(nodes) {
		if n != "kwok-node-0" {
			t.Fatalf("pod bound to %q, want kwok-node-0", n)
		}
	}
}

// TestClusterSmokeJobCompletes shows kwok's pod-complete stage: a Job's pod Succeeds and the Job completes.
func TestClusterSmokeJobCompletes(t *testing.T) {
	t.Parallel()
	kubectl(t, "create", "namespace", "smoke-job")
	kubectl(t, "-n", "smoke-job", "create", "job", "once", "--image=busybox:1.36", "--", "/bin/true")
	kubectl(t, "-n", "smoke-job", "wait", "--for=condition=Complete", "job/once", "--timeout=120s")
	if got := jsonpath("-n", "smoke-job", "get", "job", "once", "-o", "jsonpath={.status.succeeded}"); got != "1" {
		t.Fatalf("job succeeded = %q, want 1", got)
	}
}

// TestClusterSmokeRolloutBlueGreenPromote shows the Argo Rollouts controller and the real kubectl plugin: a
// blue/green Rollout pauses on a new image with a preview ReplicaSet while the active Service keeps the old
// pods, and `kubectl argo rollouts promote` switches the active Service to the new ReplicaSet.
func TestClusterSmokeRolloutBlueGreenPromote(t *testing.T) {
	t.Parallel()
	ns := "smoke-rollout"
	kubectl(t, "create", "namespace", ns)
	apply(t, ns, `
apiVersion: v1
kind: Service
metadata: {name: bg-active}
spec: {selector: {app: bg}, ports: [{port: 80, targetPort: 80}]}
---
apiVersion: v1
kind: Service
metadata: {name: bg-preview}
spec: {selector: {app: bg}, ports: [{port: 80, targetPort: 80}]}
---
apiVersion: argoproj.io/v1alpha1
kind: Rollout
metadata: {name: bg}
spec:
  replicas: 2
  revisionHistoryLimit: 2
  selector: {matchLabels: {app: bg}}
  template:
    metadata: {labels: {app: bg}}
    spec: {containers: [{name: app, image: "nginx:1.26-alpine", ports: [{containerPort: 80}]}]}
  strategy:
    blueGreen: {activeService: bg-active, previewService: bg-preview, autoPromotionEnabled: false}
`)
	phase := func() string { return jsonpath("-n", ns, "get", "rollout", "bg", "-o", "jsonpath={.status.phase}") }
	waitFor(t, 2*time.Minute, "rollout Healthy", func() (bool, string) { return phase() == "Healthy", phase() })
	oldHash := jsonpath("-n", ns, "get", "rollout", "bg", "-o", "jsonpath={.status.currentPodHash}")

	kubectl(t, "argo", "rollouts", "-n", ns, "set", "image", "bg", "app=nginx:1.27-alpine")
	waitFor(t, 2*time.Minute, "rollout Paused with a preview ReplicaSet", func() (bool, string) {
		preview := jsonpath("-n", ns, "get", "rollout", "bg", "-o", "jsonpath={.status.blueGreen.previewSelector}")
		return phase() == "Paused" && preview != "" && preview != oldHash, phase() + " preview=" + preview
	})
	if got := jsonpath("-n", ns, "get", "svc", "bg-active", "-o",
		"jsonpath={.spec.selector.rollouts-pod-template-hash}"); got != oldHash {
		t.Fatalf("active Service moved before promotion: selects %q, want the old hash %q", got, oldHash)
	}
	newHash := jsonpath("-n", ns, "get", "rollout", "bg", "-o", "jsonpath={.status.currentPodHash}")
	t.Logf("before promote:\n%s", kubectl(t, "argo", "rollouts", "-n", ns, "get", "rollout", "bg", "--no-color"))

	kubectl(t, "argo", "rollouts", "-n", ns, "promote", "bg")
	waitFor(t, 2*time.Minute, "active Service on the new ReplicaSet and Healthy", func() (bool, string) {
		active := jsonpath("-n", ns, "get", "svc", "bg-active", "-o", "jsonpath={.spec.selector.rollouts-pod-template-hash}")
		return phase() == "Healthy" && active == newHash, fmt.Sprintf("%s active=%s want %s", phase(), active, newHash)
	})
	t.Logf("after promote:\n%s", kubectl(t, "argo", "rollouts", "-n", ns, "get", "rollout", "bg", "--no-color"))
}

// TestClusterSmokeArgoCDSyncsFromGit shows Argo CD's application-controller and repo-server syncing a folder
// of a Git repository served by the local git daemon, and following a pushed commit.
func TestClusterSmokeArgoCDSyncsFromGit(t *testing.T) {
	t.Parallel()
	work := t.TempDir()
	bare := filepath.Join(cluster.gitRoot, "smoke.git")
	git(t, cluster.gitRoot, "init", "-q", "--bare", "-b", "main", bare)
	git(t, work, "init", "-q", "-b", "main")
	if err := os.MkdirAll(filepath.Join(work, "apps"), 0o755); err != nil {
		t.Fatal(err)
	}
	cm := "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: hello}\ndata: {greeting: one}\n"
	if err := os.WriteFile(filepath.Join(work, "apps", "cm.yaml"), []byte(cm), 0o644); err != nil {
		t.Fatal(err)
	}
	git(t, work, "add", ".")
	git(t, work, "commit", "-qm", "one")
	git(t, work, "push", "-q", bare, "main")

	apply(t, "argocd", fmt.Sprintf(`
apiVersion: argoproj.io/v1alpha1
kind: Application
metadata: {name: smoke}
spec:
  project: default
  source: {repoURL: "%s/smoke.git", targetRevision: main, path: apps}
  destination: {server: "https://kubernetes.default.svc", namespace: smoke-argocd}
  syncPolicy: {automated: {prune: true, selfHeal: true}, syncOptions: [CreateNamespace=true]}
`, cluster.gitDaemon))
	status := func() string {
		return jsonpath("-n", "argocd", "get", "application", "smoke", "-o",
			"jsonpath={.status.sync.status}/{.status.health.status}")
	}
	waitFor(t, 3*time.Minute, "Application Synced/Healthy", func() (bool, string) {
		return status() == "Synced/Healthy" &&
			jsonpath("-n", "smoke-argocd", "get", "cm", "hello", "-o", "jsonpath={.data.greeting}") == "one", status()
	})

	if err := os.WriteFile(filepath.Join(work, "apps", "cm.yaml"),
		[]byte(strings.Replace(cm, "one", "two", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	git(t, work, "commit", "-qam", "two")
	git(t, work, "push", "-q", bare, "main")
	head := git(t, work, "rev-parse", "HEAD")
	kubectl(t, "-n", "argocd", "annotate", "application", "smoke", "argocd.argoproj.io/refresh=normal", "--overwrite")
	waitFor(t, 3*time.Minute, "Application synced to the pushed commit", func() (bool, string) {
		rev := jsonpath("-n", "argocd", "get", "application", "smoke", "-o", "jsonpath={.status.sync.revision}")
		data := jsonpath("-n", "smoke-argocd", "get", "cm", "hello", "-o", "jsonpath={.data.greeting}")
		return rev == head && data == "two", "revision " + rev + " data " + data
	})
}
