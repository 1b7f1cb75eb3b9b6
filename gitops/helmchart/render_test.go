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

package helmchart

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"sigs.k8s.io/kustomize/api/types"
)

// readChart reads a test chart's files into memory, paths relative to its root.
func readChart(t *testing.T, name string) map[string][]byte {
	t.Helper()
	root := filepath.Join("testdata", name)
	files := map[string][]byte{}
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(root, p)
		files[filepath.ToSlash(rel)] = b
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}

func renderSimple(t *testing.T, c types.HelmChart, valuesFile []byte) string {
	t.Helper()
	c.Name = "simple"
	out, err := New().Render(readChart(t, "simple"), Spec{Chart: c, ValuesFile: valuesFile}, "v1.31.0")
	if err != nil {
		t.Fatal(err)
	}
	return string(out)
}

func mustContain(t *testing.T, out string, wants ...string) {
	t.Helper()
	for _, w := range wants {
		if !strings.Contains(out, w) {
			t.Errorf("output lacks %q:\n%s", w, out)
		}
	}
}

func mustLack(t *testing.T, out string, unwanted ...string) {
	t.Helper()
	for _, u := range unwanted {
		if strings.Contains(out, u) {
			t.Errorf("output has %q:\n%s", u, out)
		}
	}
}

func TestRenderValuesAndFunctions(t *testing.T) {
	out := renderSimple(t, types.HelmChart{
		ReleaseName:  "rel",
		Namespace:    "ns1",
		ApiVersions:  []string{"example.com/v1/Widget"},
		ValuesInline: map[string]any{"greeting": "hi", "sub": map[string]any{"colour": "green"}},
	}, []byte("replicas: 3\n"))
	mustContain(t, out,
		"name: rel-cm", "namespace: ns1", `greeting: "hi"`, `replicas: "3"`, `tpl: "rel-tpl"`,
		`hasWidget: "true"`, `kube: "v1.31.0"`, `file: "from-files"`, `lookup: "0"`, `lib: "from-library-simple"`,
		`colour: "green"`, "# Source: simple/templates/cm.yaml")
	mustLack(t, out, "NOTES-MARKER")
	if strings.Index(out, "kind: Namespace") > strings.Index(out, "name: rel-cm") {
		t.Errorf("Namespace is not before ConfigMap in install order:\n%s", out)
	}
}

func TestRenderDefaults(t *testing.T) {
	out := renderSimple(t, types.HelmChart{}, nil)
	mustContain(t, out, "name: release-name-cm", `greeting: "hello"`, `hasWidget: "false"`, `colour: "blue"`)
}

func TestValuesMerge(t *testing.T) {
	inline := map[string]any{"greeting": "inline"}
	file := []byte("greeting: file\nreplicas: 7\n")
	cases := map[string][]string{
		MergeOverride: {`greeting: "inline"`, `replicas: "7"`},
		MergeMerge:    {`greeting: "file"`, `replicas: "7"`},
		MergeReplace:  {`greeting: "inline"`, `replicas: "1"`},
	}
	for mode, wants := range cases {
		t.Run(mode, func(t *testing.T) {
			out := renderSimple(t, types.HelmChart{ValuesInline: inline, ValuesMerge: mode}, file)
			mustContain(t, out, wants...)
		})
	}
}

func TestIncludeCRDs(t *testing.T) {
	mustLack(t, renderSimple(t, types.HelmChart{}, nil), "widgets.example.com")
	out := renderSimple(t, types.HelmChart{IncludeCRDs: true}, nil)
	mustContain(t, out, "name: widgets.example.com")
	if !strings.HasPrefix(out, "---\n# Source: simple/crds/crd.yaml") {
		t.Errorf("CRD is not first:\n%s", out)
	}
}

func TestHooksAndTests(t *testing.T) {
	mustContain(t, renderSimple(t, types.HelmChart{}, nil), "name: release-name-hook", "name: release-name-test")
	out := renderSimple(t, types.HelmChart{SkipTests: true}, nil)
	mustContain(t, out, "name: release-name-hook")
	mustLack(t, out, "name: release-name-test")
	mustLack(t, renderSimple(t, types.HelmChart{SkipHooks: true}, nil), "release-name-hook", "release-name-test")
}

func TestRequiredAndFail(t *testing.T) {
	files := readChart(t, "required")
	r := New()
	if _, err := r.Render(files, Spec{}, ""); err == nil || !strings.Contains(err.Error(), "host is required") {
		t.Errorf("required: got %v", err)
	}
	spec := Spec{Chart: types.HelmChart{ValuesInline: map[string]any{"host": "h", "broken": true}}}
	if _, err := r.Render(files, spec, ""); err == nil || !strings.Contains(err.Error(), "broken is set") {
		t.Errorf("fail: got %v", err)
	}
	spec.Chart.ValuesInline["broken"] = false
	if _, err := r.Render(files, spec, ""); err != nil {
		t.Errorf("valid values: %v", err)
	}
}

func TestRefusesRandomFunction(t *testing.T) {
	_, err := New().Render(readChart(t, "random"), Spec{}, "")
	if err == nil || !strings.Contains(err.Error(), "templates/secret.yaml") ||
		!strings.Contains(err.Error(), "randAlphaNum") {
		t.Fatalf("got %v", err)
	}
}

func TestRefusesRandomFunctionThroughTpl(t *testing.T) {
	spec := Spec{Chart: types.HelmChart{ValuesInline: map[string]any{"tplValue": "{{ now }}"}}}
	_, err := New().Render(readChart(t, "simple"), spec, "")
	if err == nil || !strings.Contains(err.Error(), "now is refused, which would make renders nondeterministic") {
		t.Fatalf("got %v", err)
	}
}

func TestRefusesDNSLookups(t *testing.T) {
	files := map[string][]byte{
		"Chart.yaml":          []byte("apiVersion: v2\nname: dns\nversion: 0.1.0\n"),
		"templates/host.yaml": []byte("kind: ConfigMap\ndata:\n  ip: {{ getHostByName \"localhost\" | quote }}\n"),
	}
	_, err := New().Render(files, Spec{}, "")
	if err == nil || !strings.Contains(err.Error(), "templates/host.yaml calls getHostByName, which would make "+
		"renders depend on DNS") {
		t.Fatalf("in a template: got %v", err)
	}
	spec := Spec{Chart: types.HelmChart{ValuesInline: map[string]any{"tplValue": `{{ getHostByName "localhost" }}`}}}
	if _, err := New().Render(readChart(t, "simple"), spec, ""); err == nil ||
		!strings.Contains(err.Error(), "getHostByName is refused") {
		t.Fatalf("through tpl: got %v", err)
	}
}

func TestRefusesOversizedValues(t *testing.T) {
	big := make([]byte, MaxValuesBytes+1)
	if _, err := New().Render(readChart(t, "simple"), Spec{ValuesFile: big}, ""); err == nil ||
		!strings.Contains(err.Error(), "more than") {
		t.Fatalf("got %v", err)
	}
}

func TestMemo(t *testing.T) {
	renders := 0
	r := New(OnRender(func() { renders++ }))
	files := readChart(t, "simple")
	first, err := r.Render(files, Spec{}, "v1.30.0")
	if err != nil {
		t.Fatal(err)
	}
	second, err := r.Render(files, Spec{}, "v1.30.0")
	if err != nil {
		t.Fatal(err)
	}
	if renders != 1 || string(first) != string(second) {
		t.Fatalf("renders = %d, outputs equal = %t", renders, string(first) == string(second))
	}
	if _, err := r.Render(files, Spec{}, "v1.31.0"); err != nil || renders != 2 {
		t.Fatalf("another kube version: renders = %d, err = %v", renders, err)
	}
	fresh, err := New().Render(files, Spec{}, "v1.30.0")
	if err != nil || string(fresh) != string(first) {
		t.Fatalf("a fresh renderer gives another output (err %v)", err)
	}
}

func TestNameTemplate(t *testing.T) {
	files := readChart(t, "simple")
	for _, tc := range []struct {
		name, template, releaseName, want string
	}{
		{name: "sprig", template: `{{ "Web" | lower }}-{{ list "x" "y" | join "" }}`, want: "name: web-xy"},
		{name: "with releaseName", template: "a", releaseName: "b", want: "nameTemplate and releaseName are both set"},
		{name: "random", template: "{{ randAlpha 5 }}", want: "randAlpha is refused"},
		{name: "empty", template: `{{ "" }}`, want: "empty release name"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			spec := Spec{Chart: types.HelmChart{Name: "simple", NameTemplate: tc.template, ReleaseName: tc.releaseName}}
			out, err := New().Render(files, spec, "v1.31.0")
			got := string(out)
			if err != nil {
				got = err.Error()
			}
			if !strings.Contains(got, tc.want) {
				t.Errorf("got %s, want %q", got, tc.want)
			}
		})
	}
}
