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
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"

	"github.com/siteops/siteops/gitops/guard"
	"github.com/siteops/siteops/gitops/internal/tree"
)

// releasesBuild renders site of testdata/releases, a Decapod group whose base holds two HelmReleases of the
// vendored chart web and one of a chart that is not vendored.
func releasesBuild(t *testing.T, site string) ([]byte, error) {
	t.Helper()
	disk, err := tree.NewDisk(filepath.Join("testdata", "releases"))
	if err != nil {
		t.Fatal(err)
	}
	in, err := guard.Site(disk, "lab/"+site)
	if err != nil {
		t.Fatal(err)
	}
	return Build(in, "lab/"+site, Options{KubeVersion: parityKubeVersion})
}

// helmTemplate runs the pinned Helm CLI as Decapod's pipeline does: helm template -n ns release chart
// --include-crds (unless skipCRDs) with values.
func helmTemplate(t *testing.T, ns, release, chart string, values map[string]any, crds bool) []byte {
	t.Helper()
	b, err := json.Marshal(values)
	if err != nil {
		t.Fatal(err)
	}
	vf := filepath.Join(t.TempDir(), "values.json")
	if err := os.WriteFile(vf, b, 0o644); err != nil {
		t.Fatal(err)
	}
	args := []string{"template", "-n", ns, release, filepath.Join("testdata", "releases", chart), "-f", vf,
		"--kube-version", parityKubeVersion}
	if crds {
		args = append(args, "--include-crds")
	}
	cmd := exec.Command(pinnedBin(t, "helm", "helm"), args...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("helm %s: %v\n%s", strings.Join(args, " "), err, stderr.String())
	}
	return out
}

// objectMaps parses a YAML stream into objects, in objectTexts' order.
func objectMaps(t *testing.T, stream []byte) []map[string]any {
	t.Helper()
	var out []map[string]any
	for _, text := range objectTexts(t, stream) {
		var m map[string]any
		_, body, _ := strings.Cut(text, "\n") // objectTexts puts the id on the first line
		if err := yaml.Unmarshal([]byte(body), &m); err != nil {
			t.Fatal(err)
		}
		out = append(out, m)
	}
	return out
}

func TestHelmReleasesInflateAsHelmTemplate(t *testing.T) {
	got, err := releasesBuild(t, "paris")
	if err != nil {
		t.Fatal(err)
	}
	want := bytes.Join([][]byte{
		helmTemplate(t, "apps", "apps-web", "charts/web-1.0.0/web",
			map[string]any{"replicas": 3, "zone": "paris", "image": "base.example/web:1"}, true),
		helmTemplate(t, "ops", "legacy-web", "charts/web-1.0.0/web", map[string]any{"zone": "base"}, false),
		[]byte("---\napiVersion: helm.toolkit.fluxcd.io/v2\nkind: HelmRelease\nmetadata:\n  name: monitoring\n" +
			"  namespace: flux-system\nspec:\n  chart:\n    spec:\n      chart: not-vendored\n      version: 9.9.9\n" +
			"      sourceRef: {kind: HelmRepository, name: lab}\n"),
	}, []byte("\n---\n"))
	if g, w := objectMaps(t, got), objectMaps(t, want); !reflect.DeepEqual(g, w) {
		t.Errorf("siteops differs from helm template of each vendored release (and the other kept):\n"+
			"--- siteops\n%s\n--- helm template\n%s", got, want)
	}
}

func TestHelmReleasesKeptWhenAnnotated(t *testing.T) {
	got, err := releasesBuild(t, "keep")
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(got), "kind: HelmRelease"); n != 3 || strings.Contains(string(got), "Deployment") {
		t.Errorf("want the three HelmReleases kept and nothing inflated, got %d:\n%s", n, got)
	}
}

func TestHelmReleaseVersionBumpInflatesThatVersion(t *testing.T) {
	got, err := releasesBuild(t, "bump")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(got), "name: apps-web-v2") || !strings.Contains(string(got), "name: legacy-web") {
		t.Errorf("want web 2.0.0 for the release the site bumped, 1.0.0 for the other:\n%s", got)
	}
}

func TestHelmReleaseVersionNotVendoredFails(t *testing.T) {
	_, err := releasesBuild(t, "missing")
	want := "HelmRelease flux-system/web: chart web 1.5.0 is not vendored (charts/web-1.0.0/web holds 1.0.0, " +
		"charts/web-2.0.0/web holds 2.0.0): vendor it at charts/web-1.5.0/web"
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Fatalf("want %q, got %v", want, err)
	}
}
