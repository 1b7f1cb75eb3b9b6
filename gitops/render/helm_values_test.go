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

package render

import (
	"strings"
	"testing"

	"github.com/siteops/siteops/gitops/guard"
	"github.com/siteops/siteops/gitops/internal/tree/treetest"
)

// decapodGroup is a Decapod-style group of the test's own: base/ holds the HelmReleases and the group's
// site-values.yaml, each site folder its own site-values.yaml; both are HelmValuesTransformer configs.
func decapodGroup(siteValues string) *treetest.Map {
	hdr := "apiVersion: openinfradev.github.com/v1\nkind: HelmValuesTransformer\nmetadata:\n  name: site\n"
	return &treetest.Map{Files: map[string]string{
		"lab/base/kustomization.yaml": "resources:\n- resources.yaml\ntransformers:\n- site-values.yaml\n",
		"lab/base/resources.yaml": "apiVersion: helm.fluxcd.io/v1\nkind: HelmRelease\nmetadata:\n  name: web\n" +
			"spec:\n  chart:\n    repository: https://charts.lab\n    name: web\n    version: 1.0.0\n" +
			"  releaseName: web\n  targetNamespace: apps\n  values:\n    replicas: 1\n    image: none\n" +
			"---\napiVersion: helm.fluxcd.io/v1\nkind: HelmRelease\nmetadata:\n  name: db\n" +
			"spec:\n  chart:\n    repository: https://charts.lab\n    name: db\n    version: 2.0.0\n" +
			"  values: {}\n",
		"lab/base/site-values.yaml": hdr + "global:\n  registry: base.reg\ncharts:\n- name: web\n  override:\n" +
			"    image: $(registry)/web\n    replicas: 2\n- name: db\n  override:\n    storage.size: 1Gi\n",
		"lab/paris/kustomization.yaml": "resources:\n- ../base\ntransformers:\n- site-values.yaml\n",
		"lab/paris/site-values.yaml":   hdr + siteValues,
	}}
}

func TestDecapodLayoutRendersInTwoPasses(t *testing.T) {
	fs := decapodGroup("global:\n  size: 5Gi\ncharts:\n- name: web\n  source:\n    version: 1.1.0\n" +
		"  override:\n    replicas: 3\n- name: db\n  override:\n    storage.size: $(size)\n")
	in, err := guard.Site(fs, "lab/paris")
	if err != nil {
		t.Fatal(err)
	}
	out, err := Build(in, "lab/paris", Options{})
	if err != nil {
		t.Fatal(err)
	}
	got := string(out)
	for _, want := range []string{
		"    storage:\n      size: 5Gi\n", // the site's pass, a global filled in
		"    image: base.reg/web\n",       // the base's pass
		"    replicas: 3\n",               // the site's pass wins over the base's 2
		"    version: 1.1.0\n",            // source: overrides the chart
	} {
		if !strings.Contains(got, want) {
			t.Errorf("render lacks %q:\n%s", want, got)
		}
	}
	if strings.Contains(got, "HelmValuesTransformer") || strings.Contains(got, "replicas: 2") {
		t.Errorf("render keeps the transformer or the base's replicas:\n%s", got)
	}
}

func TestDecapodSiteValuesMistakeNamesFileAndLine(t *testing.T) {
	in, err := guard.Site(decapodGroup("charts:\n- name: web\n  override:\n    replicas: $(missing)\n"), "lab/paris")
	if err != nil {
		t.Fatal(err)
	}
	_, err = Build(in, "lab/paris", Options{})
	want := `lab/paris/site-values.yaml:8: $(missing): no global named "missing"`
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Fatalf("Build: %v, want an error with %q", err, want)
	}
}

func TestDecapodSiteValuesYAMLErrorHasTheEditorsLine(t *testing.T) {
	fs := decapodGroup("charts:\n- name: web\n  override:\n    replicas: [3\n")
	in, err := guard.Site(fs, "lab/paris")
	if err != nil {
		t.Fatal(err)
	}
	_, err = Build(in, "lab/paris", Options{})
	want := "lab/paris/site-values.yaml:8: invalid YAML: did not find expected ',' or ']'"
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Fatalf("want %q, got %v", want, err)
	}
}
