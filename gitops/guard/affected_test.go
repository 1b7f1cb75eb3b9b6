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

package guard

import (
	"testing"

	. "github.com/onsi/gomega"

	"github.com/siteops/siteops/gitops/internal/tree/treetest"
)

func TestAffectedSites(t *testing.T) {
	tree := &treetest.Map{Files: map[string]string{
		"base/kustomization.yaml":            okBase,
		"base/deploy.yaml":                   "kind: Deployment\n",
		"base/unused.yaml":                   "kind: Unused\n",
		"other/kustomization.yaml":           okBase,
		"other/deploy.yaml":                  "kind: Deployment\n",
		"components/c/kustomization.yaml":    "kind: Component\nresources:\n- cm.yaml\n",
		"components/c/cm.yaml":               "kind: ConfigMap\n",
		"overlays/a/kustomization.yaml":      "resources:\n- ../../base\npatches:\n- path: site-values.yaml\n",
		"overlays/a/site-values.yaml":        "kind: Deployment\n",
		"overlays/b/kustomization.yaml":      "resources:\n- ../../base\ncomponents:\n- ../../components/c\n",
		"overlays/c/kustomization.yaml":      "resources:\n- ../../linked\n",
		"overlays/c/README.md":               "notes\n",
		"overlays/broken/kustomization.yaml": "resources:\n- ../../missing\n",
		"overlays/d/kustomization.yaml":      "helmGlobals:\n  chartHome: ../../charts\nhelmCharts:\n- name: web\n",
		"charts/web/Chart.yaml":              "name: web\n",
		"charts/web/templates/a.yaml":        "kind: A\n",
		"charts/other/Chart.yaml":            "name: other\n",
		"charts/third/Chart.yaml":            "name: third\n",
		"overlays/e/kustomization.yaml":      "resources:\n- release.yaml\n",
		"overlays/e/release.yaml": "apiVersion: helm.fluxcd.io/v1\nkind: HelmRelease\nmetadata:\n  name: r\n" +
			"spec:\n  chart:\n    name: other\n",
	}, Symlinks: map[string]string{"linked": "other"}}
	sites := []string{"a", "b", "broken", "c", "d", "e"}
	for _, tc := range []struct {
		name    string
		changed []string
		want    []string
	}{
		{"nothing changed", nil, nil},
		{"site values", []string{"overlays/a/site-values.yaml"}, []string{"a"}},
		{"base file", []string{"base/deploy.yaml"}, []string{"a", "b"}},
		{"base kustomization", []string{"base/kustomization.yaml"}, []string{"a", "b"}},
		{"file no kustomization reaches", []string{"base/unused.yaml", "overlays/c/README.md"}, nil},
		{"component", []string{"components/c/cm.yaml"}, []string{"b"}},
		{"through a symlinked folder", []string{"other/deploy.yaml"}, []string{"c"}},
		{"the symlink itself", []string{"linked"}, []string{"c"}},
		{"new kustomization file name next to one", []string{"overlays/a/kustomization.yml"}, []string{"a"}},
		{"broken site, own folder", []string{"overlays/broken/kustomization.yaml"}, []string{"broken"}},
		{"unrelated", []string{"README.md", "docs/x.md"}, nil},
		{"a chart's file", []string{"charts/web/templates/a.yaml"}, []string{"d"}},
		{"a file added to a chart", []string{"charts/web/templates/deep/new.yaml"}, []string{"d"}},
		{"another chart", []string{"charts/third/Chart.yaml", "charts/webby/x"}, nil},
		{"a HelmRelease's chart", []string{"charts/other/templates/new.yaml"}, []string{"e"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g := NewWithT(t)
			got, err := AffectedSites(tree, "overlays", sites, tc.changed)
			g.Expect(err).NotTo(HaveOccurred())
			if tc.want == nil {
				g.Expect(got).To(BeEmpty())
			} else {
				g.Expect(got).To(Equal(tc.want))
			}
		})
	}
}

func TestAffectedSitesReadsOnlyKustomizationFiles(t *testing.T) {
	g := NewWithT(t)
	tree := &treetest.Map{Files: map[string]string{
		"base/kustomization.yaml": okBase, "base/deploy.yaml": "kind: Deployment\n",
		"overlays/a/kustomization.yaml": "resources:\n- ../../base\n",
	}}
	_, err := AffectedSites(tree, "overlays", []string{"a"}, []string{"base/deploy.yaml"})
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(tree.Reads).To(ConsistOf("overlays/a/kustomization.yaml", "base/kustomization.yaml"))
}
