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
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/siteops/siteops/test/testenv"
)

// installImage is the manager image the installer is built with.
const installImage = "ghcr.io/siteops/manager:" + e2eVersion

// TestInstallerAppliesCleanly builds dist/install.yaml with `make build-installer` and applies it to the
// local cluster server-side: every object must be accepted, exist afterwards, and the manager Rollout must
// carry the image and become Healthy under the real Argo Rollouts controller (its pods run on kwok).
//
// It runs beside the other tests on a cluster of its own (with Argo Rollouts, as every site has): the installed
// webhook configurations send every CronJob's admission in that cluster to a Service whose pods run no process.
func TestInstallerAppliesCleanly(t *testing.T) {
	t.Parallel()
	k := ownCluster(t, "installer")
	root := testenv.RepoRoot()
	// -o manifests: the CRD, RBAC and webhook YAML under base/ are committed and `make verify` keeps them in
	// step with the code, so the test does not install controller-gen to regenerate them.
	build := exec.Command("make", "--no-print-directory", "-o", "manifests", "build-installer", "IMG="+installImage)
	build.Dir = root
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("make build-installer: %v\n%s", err, out)
	}
	installer := filepath.Join(root, "dist", "install.yaml")
	data, err := os.ReadFile(installer)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(data), "image: "+installImage) {
		t.Fatalf("dist/install.yaml does not set the image %s", installImage)
	}

	// kubectl get -f names every object of the file, whether or not it exists yet (a dry run).
	objects := strings.Fields(k.kubectl(t, "create", "--dry-run=client", "-o", "name", "-f", installer))
	if len(objects) < 15 {
		t.Fatalf("dist/install.yaml holds %d objects, want the CRDs, RBAC, webhooks, Rollout and Services: %v",
			len(objects), objects)
	}

	out := k.kubectl(t, "apply", "--server-side", "-f", installer)
	applied := strings.Split(strings.TrimSpace(out), "\n")
	if len(applied) != len(objects) {
		t.Fatalf("kubectl apply reported %d objects, the file has %d:\n%s", len(applied), len(objects), out)
	}
	for _, line := range applied {
		if !strings.HasSuffix(line, " serverside-applied") {
			t.Errorf("not applied: %s", line)
		}
	}
	for _, obj := range objects {
		if _, err := k.tryIn("", "get", "-n", "siteops-system", obj); err != nil {
			t.Errorf("%s is missing after the apply: %v", obj, err)
		}
	}

	image := k.jsonpath("-n", "siteops-system", "get", "rollout", "siteops-manager", "-o",
		"jsonpath={.spec.template.spec.containers[0].image}")
	if image != installImage {
		t.Fatalf("Rollout siteops-manager runs %q, want %q", image, installImage)
	}
	waitFor(t, 3*time.Minute, "the installed Rollout to be Healthy", func() (bool, string) {
		phase := k.jsonpath("-n", "siteops-system", "get", "rollout", "siteops-manager", "-o",
			"jsonpath={.status.phase} {.status.message}")
		return strings.HasPrefix(phase, "Healthy"), phase
	})
	t.Logf("$ kubectl argo rollouts get rollout siteops-manager -n siteops-system\n%s",
		// kubectl does not pass flags placed before a plugin's name: the plugin takes --kubeconfig itself.
		kubectl(t, "argo", "rollouts", "get", "rollout", "siteops-manager", "-n", "siteops-system", "--no-color",
			"--kubeconfig", k.kubeconfig))
}

// TestBuildStampsVersion: the version ldflags of `make build` (`make ldflags`) stamp VERSION into both binaries:
// `manager --version` and `siteops version` print it.
func TestBuildStampsVersion(t *testing.T) {
	t.Parallel()
	manager := managerBinary(t)
	out, err := exec.Command(manager, "--version").Output()
	if err != nil || strings.TrimSpace(string(out)) != e2eVersion {
		t.Fatalf("manager --version = %q, %v; want %s", out, err, e2eVersion)
	}
	siteops := filepath.Join(filepath.Dir(manager), "siteops")
	out, err = exec.Command(siteops, "version").Output()
	if err != nil || strings.TrimSpace(string(out)) != "siteops "+e2eVersion {
		t.Fatalf("siteops version = %q, %v; want siteops %s", out, err, e2eVersion)
	}
}
