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
	"strconv"
	"strings"
	"testing"

	"github.com/siteops/siteops/test/testenv"
)

// TestAddSiteKeepsTheFleetsSiteComponents: `hack/local-cluster.sh add-site NAME` run from a shell that knows
// the fleet's state folder (SITEOPS_CLUSTER_DIR) but not the settings the fleet was started with starts the site
// with the fleet's site components (fleetSiteComponents: Argo Rollouts' CRDs and controller) on the fleet's
// ports, as `up` started the others.
func TestAddSiteKeepsTheFleetsSiteComponents(t *testing.T) {
	t.Parallel()
	if !strings.Contains(fleetSiteComponents, "rollouts") || len(cluster.sites) == 0 {
		t.Fatal("the fleet runs no site with Argo Rollouts: this test has nothing to compare with")
	}
	const name = "site-kept"
	siteSlots(t, 1)
	var env []string
	for _, kv := range cluster.env {
		k, _, _ := strings.Cut(kv, "=")
		switch k {
		case "SITEOPS_CLUSTER_SITE_COMPONENTS", "SITEOPS_CLUSTER_COMPONENTS", "SITEOPS_CLUSTER_PORT_BASE",
			"SITEOPS_CLUSTER_SITES":
			continue
		}
		env = append(env, kv)
	}
	cmd := exec.Command(filepath.Join(testenv.RepoRoot(), "hack", "local-cluster.sh"), "add-site", name)
	cmd.Env = env
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("local-cluster.sh add-site %s: %v\n%s", name, err, out)
	}
	t.Cleanup(func() {
		localCluster(t, "stop-site", name)
		_, _ = tryKubectl("-n", "argocd", "delete", "secret", "cluster-"+name, "--ignore-not-found")
	})

	if got := siteKube(name).jsonpath("get", "crd", "rollouts.argoproj.io", "-o",
		"jsonpath={.status.conditions[?(@.type==\"Established\")].status}"); got != "True" {
		t.Errorf("site %s: Rollout CRD Established=%q, want True: add-site left out Argo Rollouts", name, got)
	}
	pid, err := os.ReadFile(filepath.Join(cluster.dir, "site."+name+".rollouts-controller.pid"))
	if err != nil {
		t.Errorf("site %s runs no rollouts-controller: %v", name, err)
	} else if _, err := os.Stat(filepath.Join("/proc", strings.TrimSpace(string(pid)))); err != nil {
		t.Errorf("site %s: its rollouts-controller (pid %s) does not run", name, strings.TrimSpace(string(pid)))
	}
	// The site's kube-apiserver listens beside the fleet's other sites, above them, from the fleet's port base.
	first, got := sitePort(t, cluster.sites[0]), sitePort(t, name)
	if got <= first || got-first >= 200 {
		t.Errorf("site %s listens on port %d, not beside site %s on %d", name, got, cluster.sites[0], first)
	}
}

// sitePort is the port of site's kube-apiserver, from its admin kubeconfig.
func sitePort(t *testing.T, site string) int {
	t.Helper()
	server := jsonpath("--kubeconfig", siteKubeconfig(site), "config", "view", "--minify", "-o",
		"jsonpath={.clusters[0].cluster.server}")
	port, err := strconv.Atoi(server[strings.LastIndex(server, ":")+1:])
	if err != nil {
		t.Fatalf("site %s's server %q: %v", site, server, err)
	}
	return port
}
