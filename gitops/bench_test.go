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

package gitops

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/siteops/siteops/gitops/guard"
	"github.com/siteops/siteops/gitops/internal/tree"
	"github.com/siteops/siteops/gitops/internal/tree/treetest"
	"github.com/siteops/siteops/gitops/render"
)

// onDisk writes the tree's files under a temp dir and returns a Disk over it (the real implementation).
func onDisk(b *testing.B, m *treetest.Map) *tree.Disk {
	b.Helper()
	root := b.TempDir()
	for p, c := range m.Files {
		full := filepath.Join(root, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			b.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(c), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	t, err := tree.NewDisk(root)
	if err != nil {
		b.Fatal(err)
	}
	return t
}

// benchRepo generates 100 sites × 20 resources: ten group bases of 10 resources each, and per site an overlay
// over its group's base with 10 own resources and a strategic-merge patch.
func benchRepo() (*treetest.Map, []string) {
	files := map[string]string{}
	var sites []string
	for grp := range 10 {
		k := "resources:\n"
		for r := range 10 {
			name := fmt.Sprintf("g%d-r%d.yaml", grp, r)
			files[fmt.Sprintf("bases/g%d/%s", grp, name)] = deployment(fmt.Sprintf("g%d-app%d", grp, r), "nginx:1.25", 1)
			k += "- " + name + "\n"
		}
		files[fmt.Sprintf("bases/g%d/kustomization.yaml", grp)] = k
	}
	for s := range 100 {
		site := fmt.Sprintf("site%03d", s)
		sites = append(sites, site)
		k := fmt.Sprintf("namespace: %s\nresources:\n- ../../bases/g%d\n", site, s%10)
		for r := range 10 {
			name := fmt.Sprintf("cm%d.yaml", r)
			files["overlays/"+site+"/"+name] = fmt.Sprintf("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: %s-%d\n"+
				"data:\n  site: %s\n", site, r, site)
			k += "- " + name + "\n"
		}
		k += "patches:\n- path: site-values.yaml\n"
		files["overlays/"+site+"/kustomization.yaml"] = k
		files["overlays/"+site+"/site-values.yaml"] = fmt.Sprintf("apiVersion: apps/v1\nkind: Deployment\n"+
			"metadata:\n  name: g%d-app0\nspec:\n  replicas: %d\n", s%10, 1+s%3)
	}
	return &treetest.Map{Files: files}, sites
}

func BenchmarkRenderSite(b *testing.B) {
	m, _ := benchRepo()
	tree := onDisk(b, m)
	for b.Loop() {
		in, err := guard.Site(tree, "overlays/site042")
		if err != nil {
			b.Fatal(err)
		}
		if _, err := render.Build(in, "overlays/site042", render.Options{}); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkAffectedSites(b *testing.B) {
	m, sites := benchRepo()
	tree := onDisk(b, m)
	changed := []string{"bases/g3/g3-r7.yaml", "overlays/site050/site-values.yaml"}
	for b.Loop() {
		got, err := guard.AffectedSites(tree, "overlays", sites, changed)
		if err != nil {
			b.Fatal(err)
		}
		if len(got) != 11 { // the ten sites of group 3, and site050
			b.Fatalf("affected %d sites: %v", len(got), got)
		}
	}
}
