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
	"fmt"
	"path"
	"strings"

	"github.com/siteops/siteops/gitops/internal/tree"
)

// defaultChartHome is where kustomize looks for charts when helmGlobals names no chartHome.
const defaultChartHome = "charts"

// Chart is one helmCharts entry the guard passed: its files are in Inputs.Files under Dir.
type Chart struct {
	// KustFile is the logical path of the kustomization that names the chart.
	KustFile string
	// Index is the entry's place in that kustomization's helmCharts.
	Index int
	// Dir is the logical folder of the chart's files.
	Dir string
	// Namespace is what the chart is rendered into when its entry names none: the kustomization's namespace,
	// or the nearest including kustomization's, as kustomize passes it to Helm.
	Namespace string
}

// chartRef is what the guard reads of one helmCharts entry.
type chartRef struct {
	field                           string // "helmCharts[0]"
	name, version, repo, valuesFile string
	releaseName                     string
	additionalValuesFiles           []string
}

// parseCharts reads the helmCharts entries and helmGlobals.chartHome of a kustomization.
func parseCharts(doc map[string]any, p *parsedKustomization) error {
	if v, ok := doc["helmGlobals"]; ok && v != nil {
		m, isMap := v.(map[string]any)
		if !isMap {
			return fmt.Errorf("field \"helmGlobals\": expected a mapping")
		}
		if err := optionalString(m, "helmGlobals", "chartHome", func(_, s string) { p.chartHome = s }); err != nil {
			return err
		}
	}
	return eachMap(doc, "helmCharts", func(name string, m map[string]any) error {
		c := chartRef{field: name}
		var err error
		for _, f := range []struct {
			key string
			dst *string
		}{{"name", &c.name}, {"version", &c.version}, {"repo", &c.repo}, {"valuesFile", &c.valuesFile},
			{"releaseName", &c.releaseName}} { // in this order, so the first field of the wrong type is the one told
			err = firstErr(err, optionalString(m, name, f.key, func(_, s string) { *f.dst = s }))
		}
		err = firstErr(err, eachString(m, "additionalValuesFiles", func(_, s string) {
			c.additionalValuesFiles = append(c.additionalValuesFiles, s)
		}))
		if err != nil {
			return err
		}
		p.charts = append(p.charts, c)
		return nil
	})
}

// chartReason explains why an entry cannot be rendered before its files are looked at ("" when it can).
func chartReason(c chartRef) string {
	switch {
	case c.name == "":
		return "the chart's name is empty"
	case strings.HasPrefix(c.name, "-"), strings.ContainsAny(c.name, "/\\"), c.name == "." || c.name == "..":
		return fmt.Sprintf("chart name %q is not a plain name", c.name)
	case strings.HasPrefix(c.releaseName, "-"):
		return fmt.Sprintf("releaseName must not start with '-', got %q", c.releaseName)
	}
	return ""
}

// followChart checks one helmCharts entry of kustomization kf in folder dir and takes in the chart's files and
// its values files; ns is the namespace the chart inherits.
func (w *walker) followChart(dir, kf, chartHome string, index int, c chartRef, ns string) error {
	at := fmt.Sprintf("%s: %s %q: ", kf, c.field, c.name)
	if reason := chartReason(c); reason != "" {
		return w.refuse("%s%s", at, reason)
	}
	if chartHome == "" {
		chartHome = defaultChartHome
	}
	if reason := refReason(chartHome, false); reason != "" {
		return w.refuse("%shelmGlobals.chartHome %q: %s", at, chartHome, reason)
	}
	home := tree.CleanRel(path.Join(dir, chartHome))
	if c.version != "" && c.repo != "" {
		home = path.Join(home, c.name+"-"+c.version) // where kustomize pulls a pinned remote chart to
	}
	chartDir := path.Join(home, c.name)
	if tree.EscapesRoot(chartDir) {
		return w.refuse("%sthe chart's folder %q leaves the checkout", at, chartDir)
	}
	realDir, e, err := tree.Resolve(w.t, chartDir)
	if err != nil {
		return w.refuse("%s%v", at, err)
	}
	switch {
	case e.Kind == tree.Missing && c.repo != "":
		return w.refuse("%sthe chart is not in the checkout at %s: siteops does not fetch charts from %s; "+
			"vendor it there (helm pull %s --untar --untardir %s)", at, chartDir, c.repo, c.name, home)
	case e.Kind == tree.Missing:
		return w.refuse("%sno chart at %s, and no repo is given", at, chartDir)
	case e.Kind != tree.Dir:
		return w.refuse("%s%s is not a chart folder", at, chartDir)
	}
	if err := w.takeChart(chartDir, realDir, at); err != nil {
		return err
	}
	refs := []kustRef{}
	if c.valuesFile != "" {
		refs = append(refs, kustRef{field: c.field + ".valuesFile", value: c.valuesFile, kind: refFile})
	}
	for i, f := range c.additionalValuesFiles {
		refs = append(refs, kustRef{field: fmt.Sprintf("%s.additionalValuesFiles[%d]", c.field, i), value: f})
	}
	for _, ref := range refs {
		if err := w.followRef(dir, kf, ref); err != nil {
			return err
		}
	}
	w.in.Charts = append(w.in.Charts, Chart{KustFile: kf, Index: index, Dir: chartDir, Namespace: ns})
	return nil
}

// takeChart takes in the chart folder logical (real path realDir) whole: every file, and the folder itself as
// reached, so that a file added to it later affects the site too.
func (w *walker) takeChart(logical, realDir, at string) error {
	w.in.reachedDirs[logical], w.in.reachedDirs[realDir] = struct{}{}, struct{}{}
	return w.walkChartDir(logical, realDir, at)
}

// walkChartDir takes in every file of the chart folder logical (real path realDir). A chart holds no symlink:
// Helm's .Files must read nothing outside the chart.
func (w *walker) walkChartDir(logical, realDir, at string) error {
	names, err := w.t.ReadDir(realDir)
	if err != nil {
		return fmt.Errorf("%slisting %s: %w", at, logical, err)
	}
	for _, n := range names {
		p, rp := path.Join(logical, n), path.Join(realDir, n)
		e, err := w.t.Lstat(rp)
		if err != nil {
			return fmt.Errorf("%s%w", at, err)
		}
		switch e.Kind {
		case tree.Dir:
			err = w.walkChartDir(p, rp, at)
		case tree.File:
			_, err = w.addFile(p, at, false)
		case tree.Symlink:
			err = w.refuse("%s%s is a symlink: a chart may hold none (its templates read only the chart)", at, p)
		default:
			err = w.refuse("%s%s is not a regular file", at, p)
		}
		if err != nil {
			return err
		}
	}
	return nil
}
