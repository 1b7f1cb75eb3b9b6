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
	"context"
	"os"
	"path/filepath"
	"testing"

	. "github.com/onsi/gomega"

	"github.com/siteops/siteops/gitops"
	"github.com/siteops/siteops/test/gitserver"
)

// invalidSiteFiles are siteFiles with the Widget CRD in base/crds and three sites whose objects do not
// validate: a misspelled field, a CEL rule broken, an API version Kubernetes removed.
func invalidSiteFiles(t *testing.T) map[string]string {
	t.Helper()
	crd, err := os.ReadFile("../../gitops/validate/testdata/widget-crd.yaml")
	if err != nil {
		t.Fatal(err)
	}
	files := siteFiles()
	files["base/crds/widget-crd.yaml"] = string(crd)
	files["overlays/typo/kustomization.yaml"] = "resources:\n- deploy.yaml\n"
	files["overlays/typo/deploy.yaml"] = "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\nspec:\n" +
		"  replica: 3\n"
	files["overlays/widget/kustomization.yaml"] = "resources:\n- widget.yaml\n"
	files["overlays/widget/widget.yaml"] = "apiVersion: example.com/v1\nkind: Widget\nmetadata:\n  name: w\n" +
		"spec:\n  minReplicas: 3\n  maxReplicas: 2\n"
	files["overlays/removed-api/kustomization.yaml"] = "resources:\n- pdb.yaml\n"
	files["overlays/removed-api/pdb.yaml"] = "apiVersion: policy/v1beta1\nkind: PodDisruptionBudget\nmetadata:\n" +
		"  name: web\nspec:\n  minAvailable: 1\n"
	return files
}

func TestRenderFailsTheSitesWhoseObjectsDoNotValidate(t *testing.T) {
	g := NewWithT(t)
	srv := gitserver.Start(t, gitserver.Options{})
	srv.NewRepo(t, "config", invalidSiteFiles(t))
	wt := srv.Clone(t, "config")
	out := t.TempDir()

	code, _, errOut := cli(t, wt.Dir, "render", "--out", out)

	g.Expect(code).To(Equal(1))
	g.Expect(errOut).To(ContainSubstring("FAILED typo: invalid objects: Deployment web: spec.replica: unknown field"))
	g.Expect(errOut).To(ContainSubstring("FAILED widget: invalid objects: Widget w: spec: Invalid value: " +
		"minReplicas must not exceed maxReplicas"))
	g.Expect(errOut).To(ContainSubstring("FAILED removed-api: invalid objects: PodDisruptionBudget web: apiVersion: " +
		"policy/v1beta1 PodDisruptionBudget is not served by Kubernetes 1.37 (it serves PodDisruptionBudget as policy/v1)"))
	g.Expect(errOut).To(ContainSubstring("rendered 2 of 5 sites"))
	g.Expect(filepath.Join(out, "dev", gitops.ManifestFile)).To(BeARegularFile())
	g.Expect(filepath.Join(out, "typo")).NotTo(BeADirectory())

	code, _, errOut = cli(t, wt.Dir, "render", "--out", t.TempDir(), "--validation", "warn")
	g.Expect(code).To(Equal(0), errOut)
	g.Expect(errOut).To(ContainSubstring("warning: typo: invalid: Deployment web: spec.replica: unknown field"))

	code, _, errOut = cli(t, wt.Dir, "render", "--site", "typo", "--validation", "off")
	g.Expect(code).To(Equal(0), errOut)

	code, _, errOut = cli(t, wt.Dir, "render", "--site", "dev", "--kubernetes-version", "dev=1.20")
	g.Expect(code).To(Equal(1))
	g.Expect(errOut).To(ContainSubstring("FAILED dev: no schemas of Kubernetes 1.20"))

	code, _, errOut = cli(t, wt.Dir, "render", "--site", "dev", "--kubernetes-version", "latest")
	g.Expect(code).To(Equal(2))
	g.Expect(errOut).To(ContainSubstring("--kubernetes-version: kubernetes version \"latest\""))
}

func TestDiffRefusesASiteWhoseObjectsDoNotValidate(t *testing.T) {
	g := NewWithT(t)
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	srv := gitserver.Start(t, gitserver.Options{})
	url := srv.NewRepo(t, "config", invalidSiteFiles(t))
	_, err := gitops.NewSyncer(gitops.SyncerOptions{}).Sync(context.Background(),
		gitops.SyncOptions{Source: gitops.SourceSpec{URL: url}, WorkDir: t.TempDir()})
	g.Expect(err).NotTo(HaveOccurred())
	wt := srv.Clone(t, "config")

	code, _, errOut := cli(t, wt.Dir, "diff", "--site", "widget")
	g.Expect(code).To(Equal(1))
	g.Expect(errOut).To(ContainSubstring("FAILED widget: invalid objects: Widget w: spec: Invalid value"))

	code, _, errOut = cli(t, wt.Dir, "diff", "--base", "HEAD", "--head", "HEAD")
	g.Expect(code).To(Equal(1))
	g.Expect(errOut).To(ContainSubstring("3 sites failed to render"))
}
