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
	"bytes"
	"path"
	"sort"
	"strings"

	yaml "go.yaml.in/yaml/v3"

	"github.com/siteops/siteops/gitops/internal/tree"
)

// ReleaseChartsDir is the folder of the checkout where the charts of HelmReleases are vendored, laid out as
// kustomize lays out pulled charts: <name>-<version>/<name>, or <name>.
const ReleaseChartsDir = "charts"

// ReleaseChart is a chart folder of ReleaseChartsDir that a HelmRelease of the site may name: its files are in
// Inputs.Files under Dir.
type ReleaseChart struct {
	Name string // the chart's name, as HelmReleases name it
	Dir  string // its logical folder
}

// followReleaseCharts takes in the vendored charts that the site's HelmReleases (and HelmValuesTransformer
// sources) name; without contents (AffectedSites) it records their folders only.
func (w *walker) followReleaseCharts() error {
	realDir, e, err := tree.Resolve(w.t, ReleaseChartsDir)
	if err != nil || e.Kind != tree.Dir {
		return nil //nolint:nilerr // no usable chart folder: HelmReleases stay as they are
	}
	names := w.releaseChartNames()
	if len(names) == 0 {
		return nil
	}
	entries, err := w.t.ReadDir(realDir)
	if err != nil {
		return err
	}
	for _, name := range names {
		var dirs []string
		for _, entry := range entries {
			if entry == name {
				dirs = append(dirs, path.Join(ReleaseChartsDir, name))
			} else if strings.HasPrefix(entry, name+"-") {
				dirs = append(dirs, path.Join(ReleaseChartsDir, entry, name))
			}
		}
		for _, dir := range dirs {
			rd, e, err := tree.Resolve(w.t, dir)
			if err != nil || e.Kind != tree.Dir {
				continue //nolint:nilerr // charts/<name>-x without a <name> folder: another chart's
			}
			at := "HelmRelease chart " + dir + ": "
			if err := w.takeChart(dir, rd, at); err != nil {
				return err
			}
			w.in.ReleaseCharts = append(w.in.ReleaseCharts, ReleaseChart{Name: name, Dir: dir})
		}
	}
	return nil
}

// releaseChartNames are the chart names, sorted, that the YAML files of the site give HelmReleases
// (spec.chart.name of helm.fluxcd.io/v1, spec.chart.spec.chart of helm.toolkit.fluxcd.io/v2) or that its
// HelmValuesTransformer configs set (charts[].source.name). A file that does not parse names none.
func (w *walker) releaseChartNames() []string {
	set := map[string]bool{}
	add := func(n *yaml.Node) {
		if n != nil && n.Kind == yaml.ScalarNode && n.Value != "" && !strings.ContainsAny(n.Value, "/\\") {
			set[n.Value] = true
		}
	}
	for _, p := range w.in.yamlFiles {
		b := w.in.Files[p]
		if b == nil { // a walk without contents (AffectedSites) reads the YAML files only here
			if rp, _, err := tree.Resolve(w.t, p); err == nil {
				b, _ = w.t.ReadFile(rp)
			}
		}
		if !bytes.Contains(b, []byte("HelmRelease")) && !bytes.Contains(b, []byte("HelmValuesTransformer")) {
			continue
		}
		docs, err := yamlObjects(b)
		if err != nil {
			continue
		}
		for _, d := range docs {
			switch kind := field(d, "kind", 0); {
			case kind == nil:
			case kind.Value == "HelmRelease":
				chart := field(field(d, "spec", 0), "chart", 0)
				add(field(chart, "name", 0))
				add(field(field(chart, "spec", 0), "chart", 0))
			case kind.Value == "HelmValuesTransformer":
				if charts := field(d, "charts", 0); charts != nil && charts.Kind == yaml.SequenceNode {
					for _, c := range charts.Content {
						add(field(field(c, "source", 0), "name", 0))
					}
				}
			}
		}
	}
	names := make([]string, 0, len(set))
	for n := range set {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}
