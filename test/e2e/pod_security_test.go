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
	"encoding/json"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"

	"github.com/siteops/siteops/test/testenv"
)

// TestManagerPodPassesRestrictedPodSecurity takes the manager's pod template from the rendered install
// (base/install) and creates it as a Pod, server-side dry run, in a namespace that enforces the restricted Pod
// Security Standard: the apiserver accepts it. A privileged pod in the same namespace is rejected, which shows
// the enforcement is on.
func TestManagerPodPassesRestrictedPodSecurity(t *testing.T) {
	t.Parallel()
	out, err := exec.Command("kubectl", "kustomize", filepath.Join(testenv.RepoRoot(), "base", "install")).Output()
	if err != nil {
		t.Fatalf("kubectl kustomize base/install: %v", err)
	}
	var template map[string]any
	for _, doc := range strings.Split(string(out), "\n---\n") {
		var obj map[string]any
		if err := yaml.Unmarshal([]byte(doc), &obj); err != nil {
			t.Fatal(err)
		}
		if obj["kind"] == "Rollout" {
			template = obj["spec"].(map[string]any)["template"].(map[string]any)
		}
	}
	if template == nil {
		t.Fatal("no Rollout in base/install")
	}
	ns := "e2e-restricted"
	kubectl(t, "create", "namespace", ns)
	kubectl(t, "label", "namespace", ns, "pod-security.kubernetes.io/enforce=restricted")
	spec := template["spec"].(map[string]any)
	delete(spec, "serviceAccountName") // the ServiceAccount lives in siteops-system; Pod Security does not look at it
	pod := map[string]any{"apiVersion": "v1", "kind": "Pod", "metadata": map[string]any{"name": "manager"}, "spec": spec}
	b, _ := json.Marshal(pod)
	if _, err := tryKubectlIn(string(b), "-n", ns, "create", "--dry-run=server", "-f", "-"); err != nil {
		t.Fatalf("the manager pod violates the restricted Pod Security Standard: %v", err)
	}
	privileged := `{"apiVersion":"v1","kind":"Pod","metadata":{"name":"bad"},` +
		`"spec":{"containers":[{"name":"c","image":"busybox","securityContext":{"privileged":true}}]}}`
	_, err = tryKubectlIn(privileged, "-n", ns, "create", "--dry-run=server", "-f", "-")
	if err == nil || !strings.Contains(err.Error(), "restricted") {
		t.Fatalf("a privileged pod was not rejected by the restricted namespace: %v", err)
	}
}
