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
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"

	"github.com/siteops/siteops/gitops/guard"
	"github.com/siteops/siteops/gitops/internal/tree"
	"github.com/siteops/siteops/test/testenv"
)

// chartCases are the kustomizations of testdata/helm that render, with what each covers.
func chartCases() map[string]string {
	return map[string]string{
		"web":            "tpl, .Files.Get and .Files.Glob, NOTES.txt, .helmignore, namespace and labels over a chart",
		"operator":       "crds/ with includeCRDs, .Capabilities.APIVersions.Has, apiVersions, .Capabilities.KubeVersion",
		"umbrella":       "a vendored subchart and its values, a disabled subchart, a library chart, globals",
		"jobs":           "hooks and test hooks, skipTests, skipHooks, one chart under three release names",
		"strict/overlay": "valuesFile, additionalValuesFiles, valuesMerge, chartHome, a namespace inherited from an overlay",
		"named":          "nameTemplate with Sprig functions, a chart home shared with another kustomization",
	}
}

// chartFailures are the kustomizations of testdata/helm that fail on both sides, with a word of the message.
func chartFailures() map[string]string {
	return map[string]string{
		"missing-required": "endpoint is required",
		"failing-fail":     `zone \"mars\" is not one this chart serves`,
	}
}

// pinnedBin is binary name of component as hack/build-bins.sh builds it; the test fails when it is not built.
func pinnedBin(t *testing.T, component, name string) string {
	t.Helper()
	bin, err := testenv.PinnedBinary(component, name)
	if err != nil {
		t.Fatal(err)
	}
	return bin
}

// kustomizeEnableHelm runs the pinned kustomize CLI with the pinned Helm CLI on folder dir of testdata/helm.
func kustomizeEnableHelm(t *testing.T, dir string) ([]byte, string, error) {
	t.Helper()
	cmd := exec.Command(pinnedBin(t, "kustomize", "kustomize"), "build", "--enable-helm",
		"--helm-command", pinnedBin(t, "helm", "helm"), "--helm-kube-version", parityKubeVersion,
		filepath.Join("testdata", "helm", dir))
	cmd.Env = append(os.Environ(), "HELM_NO_PLUGINS=1")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	return out, stderr.String(), err
}

// parityKubeVersion is the Kubernetes version both sides render for.
const parityKubeVersion = "1.37.0"

func siteopsBuild(t *testing.T, dir string) ([]byte, error) {
	t.Helper()
	disk, err := tree.NewDisk(filepath.Join("testdata", "helm"))
	if err != nil {
		t.Fatal(err)
	}
	in, err := guard.Site(disk, dir)
	if err != nil {
		return nil, err
	}
	return Build(in, dir, Options{KubeVersion: parityKubeVersion})
}

func TestChartsRenderAsKustomizeEnableHelm(t *testing.T) {
	for dir, covers := range chartCases() {
		t.Run(dir, func(t *testing.T) {
			want, stderr, err := kustomizeEnableHelm(t, dir)
			if err != nil {
				t.Fatalf("kustomize build --enable-helm %s: %v\n%s", dir, err, stderr)
			}
			got, err := siteopsBuild(t, dir)
			if err != nil {
				t.Fatalf("siteops (%s): %v", covers, err)
			}
			if len(bytes.TrimSpace(got)) == 0 {
				t.Fatal("siteops rendered nothing")
			}
			// Object for object, byte for byte; the order differs: siteops keeps krusty's resource order where
			// the kustomize CLI sorts (legacy order).
			g, w := objectTexts(t, got), objectTexts(t, want)
			if strings.Join(g, "---\n") != strings.Join(w, "---\n") {
				t.Errorf("siteops (%s) differs from kustomize --enable-helm:\n--- siteops\n%s\n--- kustomize\n%s",
					covers, strings.Join(g, "---\n"), strings.Join(w, "---\n"))
			}
		})
	}
}

// objectTexts splits a YAML stream into its documents' text, sorted by apiVersion, kind, namespace and name.
func objectTexts(t *testing.T, stream []byte) []string {
	t.Helper()
	type doc struct{ id, text string }
	var docs []doc
	for _, text := range strings.Split("\n"+string(stream), "\n---\n") {
		text = strings.TrimSuffix(strings.TrimPrefix(text, "\n"), "\n") + "\n" // the split eats one newline
		if strings.TrimSpace(text) == "" {
			continue
		}
		var m struct {
			APIVersion string `json:"apiVersion"`
			Kind       string `json:"kind"`
			Metadata   struct{ Name, Namespace string }
		}
		if err := yaml.Unmarshal([]byte(text), &m); err != nil {
			t.Fatalf("parsing %q: %v", text, err)
		}
		docs = append(docs, doc{id: strings.Join([]string{m.APIVersion, m.Kind, m.Metadata.Namespace,
			m.Metadata.Name}, "/"), text: text})
	}
	sort.Slice(docs, func(i, j int) bool { return docs[i].id < docs[j].id })
	out := make([]string, len(docs))
	for i, d := range docs {
		out[i] = d.id + "\n" + d.text
	}
	return out
}

func TestChartFailuresFailAsKustomizeEnableHelm(t *testing.T) {
	for dir, msg := range chartFailures() {
		t.Run(dir, func(t *testing.T) {
			_, stderr, err := kustomizeEnableHelm(t, dir)
			if err == nil || !strings.Contains(stderr, strings.ReplaceAll(msg, `\"`, `"`)) {
				t.Fatalf("kustomize build --enable-helm %s: want a failure with %q, got %v\n%s", dir, msg, err, stderr)
			}
			_, err = siteopsBuild(t, dir)
			if err == nil || !strings.Contains(err.Error(), strings.ReplaceAll(msg, `\"`, `"`)) {
				t.Fatalf("siteops: want a failure with %q, got %v", msg, err)
			}
		})
	}
}
