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
	"os"
	"path/filepath"
	"strings"
	"testing"

	. "github.com/onsi/gomega"

	"github.com/siteops/siteops/gitops/internal/tree"
	"github.com/siteops/siteops/gitops/internal/tree/treetest"
)

const okBase = "resources:\n- deploy.yaml\n"

func TestGuardRefusals(t *testing.T) {
	for _, tc := range []struct {
		name     string
		kust     string
		files    map[string]string
		symlinks map[string]string
		want     string // "" = accepted
	}{
		{name: "plain overlay", kust: "resources:\n- ../../base\npatches:\n- path: v.yaml\n",
			files: map[string]string{"overlays/s/v.yaml": "kind: X\n"}},
		{name: "inline patch is not a path",
			kust: "resources:\n- ../../base\npatchesStrategicMerge:\n- |\n  kind: X\n  metadata: {name: a}\n"},
		{name: "http URL", kust: "resources:\n- http://127.0.0.1:1/x.yaml\n", want: "remote references"},
		{name: "https repo with ref", kust: "resources:\n- https://example.com/org/repo//dir?ref=v1\n",
			want: "remote references"},
		{name: "scp base", kust: "bases:\n- git@github.com:org/repo.git\n", want: "remote references"},
		{name: "github shorthand", kust: "resources:\n- github.com/org/repo/dir\n", want: "remote references"},
		{name: "git:: prefix", kust: "resources:\n- git::https://example.com/repo\n", want: "remote references"},
		{name: "query string", kust: "resources:\n- dir?version=v1\n", want: "remote references"},
		{name: "file URL", kust: "resources:\n- file:///etc/passwd\n", want: "remote references"},
		{name: "absolute path", kust: "resources:\n- /etc/passwd\n", want: "absolute paths"},
		{name: "home path", kust: "resources:\n- ~/x.yaml\n", want: "home-relative"},
		{name: "dot-dot escape", kust: "resources:\n- ../../../x\n", want: "leaves the checkout"},
		{name: "patch file escape", kust: "patches:\n- path: ../../../../p.yaml\n", want: "leaves the checkout"},
		{name: "generator file escape", kust: "configMapGenerator:\n- name: c\n  files:\n  - k=../../../../etc/shadow\n",
			want: "leaves the checkout"},
		{name: "generator env escape", kust: "secretGenerator:\n- name: c\n  envs:\n  - ../../../../.env\n",
			want: "leaves the checkout"},
		{name: "openapi escape", kust: "openapi:\n  path: ../../../../schema.json\n", want: "leaves the checkout"},
		{name: "crds escape", kust: "crds:\n- ../../../../crd.yaml\n", want: "leaves the checkout"},
		{name: "replacements escape", kust: "replacements:\n- path: ../../../../r.yaml\n", want: "leaves the checkout"},
		{name: "configurations escape", kust: "configurations:\n- /tmp/c.yaml\n", want: "absolute paths"},
		{name: "validators remote", kust: "validators:\n- https://example.com/v.yaml\n", want: "remote references"},
		{name: "symlink to absolute", kust: "resources:\n- l.yaml\n",
			symlinks: map[string]string{"overlays/s/l.yaml": "/etc/passwd"},
			want:     "outside the checkout"},
		{name: "symlinked folder escaping", kust: "resources:\n- d/x.yaml\n",
			symlinks: map[string]string{"overlays/s/d": "../../.."},
			want:     "outside the checkout"},
		{name: "symlink inside is fine", kust: "resources:\n- b\n",
			symlinks: map[string]string{"overlays/s/b": "../../base"}},
		{name: "symlink loop", kust: "resources:\n- a.yaml\n", symlinks: map[string]string{"overlays/s/a.yaml": "b.yaml",
			"overlays/s/b.yaml": "a.yaml"},
			want: "too many levels of symbolic links"},
		{name: "missing file", kust: "resources:\n- nope.yaml\n", want: "not found in the checkout"},
		{name: "folder where a file is expected", kust: "patches:\n- path: ../../base\n", want: "is a folder"},
		{name: "folder without kustomization", kust: "resources:\n- empty\n",
			files: map[string]string{"overlays/s/empty/x.txt": "x"},
			want:  "no kustomization file"},
		{name: "two kustomization files", kust: "resources: []\n",
			files: map[string]string{"overlays/s/kustomization.yml": "resources: []\n"},
			want:  "several kustomization files"},
		{name: "vendored chart", kust: "helmCharts:\n- name: x\n  valuesFile: v.yaml\n",
			files: map[string]string{"overlays/s/charts/x/Chart.yaml": "name: x\n", "overlays/s/v.yaml": "a: 1\n",
				"overlays/s/charts/x/templates/a.yaml": "kind: A\n"}},
		{name: "chart missing", kust: "helmCharts:\n- name: x\n", want: "no chart at overlays/s/charts/x"},
		{name: "remote chart not vendored",
			kust: "helmCharts:\n- name: x\n  repo: https://charts.example\n  version: 1.0.0\n",
			want: "not in the checkout at overlays/s/charts/x-1.0.0/x: siteops does not fetch charts"},
		{name: "chart name with a path", kust: "helmCharts:\n- name: ../../x\n", want: "is not a plain name"},
		{name: "chart home escaping", kust: "helmGlobals:\n  chartHome: ../../../c\nhelmCharts:\n- name: x\n",
			want: "leaves the checkout"},
		{name: "chart home absolute", kust: "helmGlobals:\n  chartHome: /tmp\nhelmCharts:\n- name: x\n",
			want: "absolute paths"},
		{name: "symlink in a chart", kust: "helmCharts:\n- name: x\n",
			files:    map[string]string{"overlays/s/charts/x/Chart.yaml": "name: x\n"},
			symlinks: map[string]string{"overlays/s/charts/x/files/key": "../../../../../base/deploy.yaml"},
			want:     "is a symlink: a chart may hold none"},
		{name: "values file escaping", kust: "helmCharts:\n- name: x\n  valuesFile: ../../../v.yaml\n",
			files: map[string]string{"overlays/s/charts/x/Chart.yaml": "name: x\n"}, want: "leaves the checkout"},
		{name: "old helm field", kust: "helmChartInflationGenerator:\n- chartName: x\n", want: "use helmCharts"},
		{name: "helm generator inline",
			kust: "generators:\n- |\n  apiVersion: builtin\n  kind: HelmChartInflationGenerator\n  metadata: {name: x}\n",
			want: "list the chart in helmCharts"},
		{name: "container function", kust: "transformers:\n- fn.yaml\n",
			files: map[string]string{"overlays/s/fn.yaml": "kind: X\nmetadata:\n  name: f\n" +
				"  annotations:\n    config.kubernetes.io/function: |\n      container:\n        image: evil\n"},
			want: "KRM functions"},
		{name: "legacy function annotation", kust: "generators:\n- fn.yaml\n",
			files: map[string]string{"overlays/s/fn.yaml": "kind: X\nmetadata:\n  name: f\n" +
				"  annotations:\n    config.k8s.io/function: |\n      exec: {path: /bin/sh}\n"}, want: "KRM functions"},
		{name: "cycle through base", kust: "resources:\n- ../../base\n",
			files: map[string]string{"base/kustomization.yaml": "resources:\n- ../overlays/s\n"},
			want:  "kustomization cycle: overlays/s -> base -> overlays/s"},
		{name: "diamond is not a cycle", kust: "resources:\n- ../../base\n- ../../mid\n",
			files: map[string]string{"mid/kustomization.yaml": "resources:\n- ../base2\n",
				"base2/kustomization.yaml": okBase, "base2/deploy.yaml": "kind: X\n"}},
		{name: "big file", kust: "resources:\n- big.yaml\n",
			files: map[string]string{"overlays/s/big.yaml": strings.Repeat("x", MaxFileSize+1)},
			want:  "over the 10485760-byte limit"},
		{name: "wrong field type", kust: "resources: ../../base\n", want: `field "resources": expected a list`},
		{name: "malformed", kust: "resources: [\n", want: "invalid YAML"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g := NewWithT(t)
			tree := &treetest.Map{Files: map[string]string{
				"base/kustomization.yaml":       okBase,
				"base/deploy.yaml":              "kind: Deployment\n",
				"overlays/s/kustomization.yaml": tc.kust,
			}, Symlinks: tc.symlinks}
			for p, c := range tc.files {
				tree.Files[p] = c
			}
			in, err := Site(tree, "overlays/s")
			g.Expect(treetest.InsideRoot(tree.Reads)).To(BeTrue(), "reads %v", tree.Reads)
			if tc.want == "" {
				g.Expect(err).NotTo(HaveOccurred())
				g.Expect(in.Digest).To(HavePrefix("sha256:"))
				return
			}
			g.Expect(err).To(MatchError(ContainSubstring(tc.want)))
			g.Expect(err.Error()).To(ContainSubstring("overlays/s"), "the message names the file")
		})
	}
}

func TestGuardDigestCoversEveryReachedFileAndNothingElse(t *testing.T) {
	g := NewWithT(t)
	tree := &treetest.Map{Files: map[string]string{
		"base/kustomization.yaml":       okBase,
		"base/deploy.yaml":              "kind: Deployment\n",
		"base/unused.yaml":              "kind: Unused\n",
		"overlays/s/kustomization.yaml": "resources:\n- ../../base\n",
	}}
	first, err := Site(tree, "overlays/s")
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(first.Files).To(HaveLen(3))

	tree.Files["base/unused.yaml"] = "kind: Changed\n"
	same, _ := Site(tree, "overlays/s")
	g.Expect(same.Digest).To(Equal(first.Digest))

	tree.Files["base/deploy.yaml"] = "kind: Deployment\nspec: {}\n"
	changed, _ := Site(tree, "overlays/s")
	g.Expect(changed.Digest).NotTo(Equal(first.Digest))
}

func TestDirTreeNeverOpensAPathOutsideTheRoot(t *testing.T) {
	g := NewWithT(t)
	outside := t.TempDir()
	g.Expect(os.WriteFile(filepath.Join(outside, "secret.yaml"), []byte("kind: Secret\n"), 0o644)).To(Succeed())
	root := t.TempDir()
	site := filepath.Join(root, "overlays", "s")
	g.Expect(os.MkdirAll(site, 0o755)).To(Succeed())
	g.Expect(os.WriteFile(filepath.Join(site, "kustomization.yaml"),
		[]byte("resources:\n- abs.yaml\n- rel/secret.yaml\n"), 0o644)).To(Succeed())
	g.Expect(os.Symlink(filepath.Join(outside, "secret.yaml"), filepath.Join(site, "abs.yaml"))).To(Succeed())
	rel, err := filepath.Rel(site, outside)
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(os.Symlink(rel, filepath.Join(site, "rel"))).To(Succeed())

	for _, kust := range []string{"resources:\n- abs.yaml\n", "resources:\n- rel/secret.yaml\n"} {
		g.Expect(os.WriteFile(filepath.Join(site, "kustomization.yaml"), []byte(kust), 0o644)).To(Succeed())
		tree, err := tree.NewDisk(root)
		g.Expect(err).NotTo(HaveOccurred())
		var opened []string
		tree.OnOpen = func(abs string) { opened = append(opened, abs) }

		_, err = Site(tree, "overlays/s")

		g.Expect(err).To(MatchError(ContainSubstring("outside the checkout")))
		g.Expect(opened).NotTo(BeEmpty())
		for _, p := range opened {
			g.Expect(strings.HasPrefix(p, tree.Root()+string(filepath.Separator))).To(BeTrue(), "opened %s", p)
		}
	}
}

func TestSiteTakesInTheChartsItsHelmReleasesName(t *testing.T) {
	g := NewWithT(t)
	release := "apiVersion: helm.toolkit.fluxcd.io/v2\nkind: HelmRelease\nmetadata:\n  name: web\nspec:\n  chart:\n" +
		"    spec:\n      chart: web\n      version: 1.0.0\n"
	fs := &treetest.Map{Files: map[string]string{
		"overlays/s/kustomization.yaml":         "resources:\n- release.yaml\n",
		"overlays/s/release.yaml":               release,
		"charts/web-1.0.0/web/Chart.yaml":       "name: web\nversion: 1.0.0\n",
		"charts/web-1.0.0/web/templates/a.yaml": "kind: A\n",
		"charts/web/Chart.yaml":                 "name: web\nversion: 0.9.0\n",
		"charts/webby-1.0.0/webby/Chart.yaml":   "name: webby\n",
		"charts/other/Chart.yaml":               "name: other\n",
	}}
	in, err := Site(fs, "overlays/s")
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(in.ReleaseCharts).To(Equal([]ReleaseChart{{Name: "web", Dir: "charts/web"},
		{Name: "web", Dir: "charts/web-1.0.0/web"}}))
	g.Expect(in.Files).To(HaveKey("charts/web-1.0.0/web/templates/a.yaml"))
	g.Expect(in.Files).NotTo(HaveKey("charts/other/Chart.yaml"))
	g.Expect(in.Files).NotTo(HaveKey("charts/webby-1.0.0/webby/Chart.yaml"))

	fs.Symlinks = map[string]string{"charts/web-1.0.0/web/files/key": "../../../../overlays/s/release.yaml"}
	_, err = Site(fs, "overlays/s")
	g.Expect(err).To(MatchError(ContainSubstring("charts/web-1.0.0/web/files/key is a symlink")))
}
