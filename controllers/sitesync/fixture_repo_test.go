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

package sitesync

import (
	"fmt"
	"os/exec"
	"strings"
	"testing"

	. "github.com/onsi/gomega"

	"github.com/siteops/siteops/gitops"
)

// siteValues is a Decapod-style strategic-merge patch of the web Deployment for one site.
func siteValues(replicas int, image string) string {
	return fmt.Sprintf(`apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
spec:
  replicas: %d
  template:
    spec:
      containers:
      - name: app
        image: %s
`, replicas, image)
}

// configRepo is a source repository with a base and three sites over it.
func configRepo() map[string]string {
	return map[string]string{
		"base/kustomization.yaml": "resources:\n- deployment.yaml\n",
		"base/deployment.yaml": `apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
spec:
  replicas: 1
  selector:
    matchLabels: {app: web}
  template:
    metadata:
      labels: {app: web}
    spec:
      containers:
      - name: app
        image: nginx:1.25
`,
		"overlays/dev/kustomization.yaml":     "resources:\n- ../../base\npatches:\n- path: site-values.yaml\n",
		"overlays/dev/site-values.yaml":       siteValues(1, "nginx:1.25"),
		"overlays/staging/kustomization.yaml": "resources:\n- ../../base\npatches:\n- path: site-values.yaml\n",
		"overlays/staging/site-values.yaml":   siteValues(2, "nginx:1.26"),
		"overlays/prod/kustomization.yaml":    "resources:\n- ../../base\npatches:\n- path: site-values.yaml\n",
		"overlays/prod/site-values.yaml":      siteValues(3, "nginx:1.26"),
		"README.md":                           "# config\n",
	}
}

// renderedFile reads a site's manifest on the rendered branch of repo.
func renderedFile(t *testing.T, repo, site string) (string, bool) {
	t.Helper()
	return suite.git.ReadFile(t, repo, gitops.DefaultTargetBranch, site+"/"+gitops.ManifestFile)
}

// changedFiles lists the paths that differ between two commits of repo.
func changedFiles(t *testing.T, repo, from, to string) []string {
	t.Helper()
	out, err := exec.Command("git", "--git-dir", suite.git.GitDir(repo), "diff", "--name-only", from, to).Output()
	NewWithT(t).Expect(err).NotTo(HaveOccurred())
	return strings.Fields(string(out))
}

// allRenderedContent concatenates every file of every commit on the rendered branch of repo.
func allRenderedContent(t *testing.T, repo string) string {
	t.Helper()
	var b strings.Builder
	for _, c := range suite.git.Log(t, repo, gitops.DefaultTargetBranch) {
		b.WriteString(c.Message)
		for _, f := range suite.git.Files(t, repo, c.SHA) {
			content, _ := suite.git.ReadFile(t, repo, c.SHA, f)
			b.WriteString(content)
		}
	}
	return b.String()
}
