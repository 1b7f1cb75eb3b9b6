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

package main

import (
	"os"
	"path/filepath"
	"testing"

	. "github.com/onsi/gomega"

	"github.com/siteops/siteops/gitops"
	"github.com/siteops/siteops/test/gitserver"
)

// policySiteFiles are two sites running nginx:latest, dev and prod, each in its Namespace labelled env, and
// gitops/policy's no-latest policy, bound with Deny to the namespaces labelled env=prod, in policies/.
func policySiteFiles(t *testing.T) map[string]string {
	t.Helper()
	policy, err := os.ReadFile("../../gitops/policy/testdata/no-latest.yaml")
	if err != nil {
		t.Fatal(err)
	}
	files := map[string]string{"policies/no-latest.yaml": string(policy)}
	files["base/kustomization.yaml"] = "resources:\n- deploy.yaml\n"
	files["base/deploy.yaml"] = "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\nspec:\n" +
		"  selector:\n    matchLabels: {app: web}\n  template:\n    metadata:\n      labels: {app: web}\n" +
		"    spec:\n      containers:\n      - name: web\n        image: nginx:latest\n"
	for _, env := range []string{"dev", "prod"} {
		files["overlays/"+env+"/kustomization.yaml"] = "namespace: shop-" + env + "\nresources:\n- ../../base\n" +
			"- ns.yaml\n"
		files["overlays/"+env+"/ns.yaml"] = "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: shop-" + env +
			"\n  labels:\n    env: " + env + "\n"
	}
	return files
}

func TestRenderAndDiffFailTheSitesAPolicyDenies(t *testing.T) {
	g := NewWithT(t)
	srv := gitserver.Start(t, gitserver.Options{})
	srv.NewRepo(t, "config", policySiteFiles(t))
	wt := srv.Clone(t, "config")
	out := t.TempDir()

	code, _, errOut := cli(t, wt.Dir, "render", "--out", out, "--policy", "policies")

	g.Expect(code).To(Equal(1), errOut)
	g.Expect(errOut).To(ContainSubstring("FAILED prod: denied by policy: Deployment shop-prod/web: " +
		"ValidatingAdmissionPolicy 'no-latest' with binding 'no-latest-prod' denied request: image nginx:latest " +
		"is not pinned: :latest is refused"))
	g.Expect(errOut).To(ContainSubstring("policy: prod: 0 passed, 1 denied"))
	g.Expect(errOut).To(ContainSubstring("rendered 1 of 2 sites"))
	g.Expect(filepath.Join(out, "dev", gitops.ManifestFile)).To(BeARegularFile())
	g.Expect(filepath.Join(out, "prod")).NotTo(BeADirectory())

	// Without --policy the same sites render; a policy folder that is not there is an error.
	code, _, errOut = cli(t, wt.Dir, "render", "--out", t.TempDir())
	g.Expect(code).To(Equal(0), errOut)
	code, _, errOut = cli(t, wt.Dir, "render", "--site", "dev", "--policy", "no/such/folder")
	g.Expect(code).To(Equal(1))
	g.Expect(errOut).To(ContainSubstring("policy path no/such/folder does not exist in the source"))

	code, _, errOut = cli(t, wt.Dir, "diff", "--base", "HEAD", "--head", "HEAD", "--policy", "policies")
	g.Expect(code).To(Equal(1))
	g.Expect(errOut).To(ContainSubstring("1 site failed to render: [prod]"))
}
