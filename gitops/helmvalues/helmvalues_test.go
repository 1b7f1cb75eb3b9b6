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

package helmvalues

import (
	"reflect"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

func release(t *testing.T, doc string) map[string]any {
	t.Helper()
	var obj map[string]any
	if err := yaml.Unmarshal([]byte(doc), &obj); err != nil {
		t.Fatal(err)
	}
	return obj
}

const glance = `apiVersion: helm.fluxcd.io/v1
kind: HelmRelease
metadata:
  name: glance
spec:
  chart:
    repository: https://charts.example/base
    name: glance
    version: 1.0.0
  releaseName: glance
  targetNamespace: openstack
  values:
    conf:
      ceph:
        admin_keyring: old
        enabled: false
    pod:
      replicas: 1
`

func values(t *testing.T, obj map[string]any, path string) any {
	t.Helper()
	v := obj["spec"].(map[string]any)["values"]
	for _, k := range strings.Split(path, "/") {
		m, ok := v.(map[string]any)
		if !ok {
			return nil
		}
		v = m[k]
	}
	return v
}

func TestApplyRules(t *testing.T) {
	cases := []struct {
		name   string
		config string
		path   string // slash-separated path under spec.values
		want   any
	}{{
		name:   "dotted path sets a nested value and keeps its siblings",
		config: "charts:\n- name: glance\n  override:\n    conf.ceph.enabled: true\n",
		path:   "conf/ceph/admin_keyring", want: "old",
	}, {
		name:   "dotted path sets the value",
		config: "charts:\n- name: glance\n  override:\n    conf.ceph.enabled: true\n",
		path:   "conf/ceph/enabled", want: true,
	}, {
		name:   "a whole reference keeps the global's type",
		config: "global:\n  replicas: 3\ncharts:\n- name: glance\n  override:\n    pod.replicas: $(replicas)\n",
		path:   "pod/replicas", want: 3,
	}, {
		name:   "a reference inside a string is filled as text",
		config: "global:\n  registry: reg.local\ncharts:\n- name: glance\n  override:\n    image: $(registry)/glance:1\n",
		path:   "image", want: "reg.local/glance:1",
	}, {
		name: "references in a map value are filled",
		config: "global:\n  sc: ceph\ncharts:\n- name: glance\n  override:\n    storage:\n" +
			"      class: $(sc)\n",
		path: "storage/class", want: "ceph",
	}, {
		name:   "a global that refers to another global",
		config: "global:\n  a: $(b)-x\n  b: y\ncharts:\n- name: glance\n  override:\n    v: $(a)\n",
		path:   "v", want: "y-x",
	}, {
		name:   "a map value merges into the release's map",
		config: "charts:\n- name: glance\n  override:\n    conf:\n      ceph:\n        enabled: true\n",
		path:   "conf/ceph/admin_keyring", want: "old",
	}, {
		name:   "overlapping keys apply in file order: the later wins",
		config: "charts:\n- name: glance\n  override:\n    pod.replicas: 2\n    pod:\n      replicas: 5\n",
		path:   "pod/replicas", want: 5,
	}, {
		name:   "overlapping keys apply in file order: the later wins, the other way round",
		config: "charts:\n- name: glance\n  override:\n    pod:\n      replicas: 5\n    pod.replicas: 2\n",
		path:   "pod/replicas", want: 2,
	}, {
		name:   "a null removes the key",
		config: "charts:\n- name: glance\n  override:\n    conf.ceph.admin_keyring: null\n",
		path:   "conf/ceph/admin_keyring", want: nil,
	}, {
		name:   "an entry for another release changes nothing",
		config: "charts:\n- name: keystone\n  override:\n    pod.replicas: 9\n",
		path:   "pod/replicas", want: 1,
	}}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c, err := Parse("site-values.yaml", []byte(tc.config))
			if err != nil {
				t.Fatal(err)
			}
			obj := release(t, glance)
			if err := c.Apply([]map[string]any{obj}); err != nil {
				t.Fatal(err)
			}
			if got := values(t, obj, tc.path); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("%s = %#v, want %#v", tc.path, got, tc.want)
			}
		})
	}
}

func TestEscapedDotIsOneKey(t *testing.T) {
	c, err := Parse("site-values.yaml", []byte("charts:\n- name: glance\n  override:\n    ann.example\\.com/team: s\n"))
	if err != nil {
		t.Fatal(err)
	}
	obj := release(t, glance)
	if err := c.Apply([]map[string]any{obj}); err != nil {
		t.Fatal(err)
	}
	ann, _ := values(t, obj, "ann").(map[string]any)
	if !reflect.DeepEqual(ann, map[string]any{"example.com/team": "s"}) {
		t.Errorf("ann = %#v, want one key example.com/team", ann)
	}
}

func TestSourceOverridesTheChart(t *testing.T) {
	c, err := Parse("site-values.yaml", []byte("global:\n  repo: https://charts.site\ncharts:\n- name: glance\n"+
		"  source:\n    repository: $(repo)\n    version: 2.0.0\n"))
	if err != nil {
		t.Fatal(err)
	}
	obj := release(t, glance)
	if err := c.Apply([]map[string]any{obj}); err != nil {
		t.Fatal(err)
	}
	chart := obj["spec"].(map[string]any)["chart"].(map[string]any)
	want := map[string]any{"repository": "https://charts.site", "name": "glance", "version": "2.0.0"}
	if !reflect.DeepEqual(chart, want) {
		t.Errorf("spec.chart = %#v, want %#v", chart, want)
	}
}

func TestSourceOfAFluxV2Release(t *testing.T) {
	obj := release(t, "apiVersion: helm.toolkit.fluxcd.io/v2\nkind: HelmRelease\nmetadata:\n  name: glance\n"+
		"spec:\n  chart:\n    spec:\n      chart: glance\n      version: 1.0.0\n")
	c, err := Parse("site-values.yaml", []byte("charts:\n- name: glance\n  source:\n    version: 1.1.0\n"+
		"  override:\n    a: 1\n"))
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Apply([]map[string]any{obj}); err != nil {
		t.Fatal(err)
	}
	spec := obj["spec"].(map[string]any)["chart"].(map[string]any)["spec"].(map[string]any)
	if spec["version"] != "1.1.0" || spec["chart"] != "glance" {
		t.Errorf("spec.chart.spec = %#v, want version 1.1.0 and chart glance", spec)
	}
	if values(t, obj, "a") != 1 {
		t.Errorf("values.a = %#v, want 1", values(t, obj, "a"))
	}
}

func TestErrorsNameFileAndLine(t *testing.T) {
	cases := []struct{ name, config, want string }{
		{"global not a map", "global: [a]\ncharts: []\n", "site-values.yaml:1: global must be a mapping"},
		{"charts not a list", "charts:\n  glance: {}\n", "site-values.yaml:2: charts must be a list, not a mapping"},
		{"override not a map", "charts:\n- name: glance\n  override: [a]\n",
			"site-values.yaml:3: override must be a mapping"},
		{"entry without a name", "charts:\n- override: {}\n", "site-values.yaml:2: a charts entry needs a name"},
		{"unknown field", "charts:\n- name: glance\n  overide: {}\n", `site-values.yaml:3: unknown field "overide"`},
		{"empty key in a path", "charts:\n- name: glance\n  override:\n    a..b: 1\n",
			`site-values.yaml:4: override "a..b": a dotted path has an empty key`},
		{"no charts", "global: {}\n", "no charts"},
		{"invalid YAML", "charts: [\n", "site-values.yaml: invalid YAML"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Parse("site-values.yaml", []byte(tc.config))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("Parse: %v, want an error with %q", err, tc.want)
			}
		})
	}
}

func TestApplyErrors(t *testing.T) {
	cases := []struct{ name, config, want string }{
		{"a global that refers to itself", "global:\n  a: x-$(b)\n  b: $(a)\ncharts:\n- name: glance\n" +
			"  override:\n    v: $(a)\n", `site-values.yaml:7: global "a" refers to itself: a → b → a`},
		{"an undefined global", "charts:\n- name: glance\n  override:\n    v: $(nope)\n",
			`site-values.yaml:4: $(nope): no global named "nope"`},
		{"a map inside a string", "global:\n  m: {a: 1}\ncharts:\n- name: glance\n  override:\n    v: x$(m)\n",
			"cannot stand inside a longer string"},
		{"a path through a scalar", "charts:\n- name: glance\n  override:\n    pod.replicas.max: 1\n",
			"site-values.yaml:4: override pod.replicas.max: pod.replicas is a int, not a map"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c, err := Parse("site-values.yaml", []byte(tc.config))
			if err != nil {
				t.Fatal(err)
			}
			err = c.Apply([]map[string]any{release(t, glance)})
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("Apply: %v, want an error with %q", err, tc.want)
			}
		})
	}
}

// TestTwoPassDecapodLayout applies a group's base/site-values.yaml and then a site's, as Decapod's layout does:
// the site's pass sees the base's result and wins where both set a key.
func TestTwoPassDecapodLayout(t *testing.T) {
	base := "apiVersion: openinfradev.github.com/v1\nkind: HelmValuesTransformer\nmetadata:\n  name: site\n" +
		"global:\n  registry: base.registry\ncharts:\n- name: glance\n  override:\n    image: $(registry)/glance\n" +
		"    pod.replicas: 2\n    conf.ceph.enabled: true\n"
	site := "apiVersion: openinfradev.github.com/v1\nkind: HelmValuesTransformer\nmetadata:\n  name: site\n" +
		"global:\n  registry: site.registry\ncharts:\n- name: glance\n  override:\n    pod.replicas: 3\n"
	obj := release(t, glance)
	for _, f := range []struct{ file, text string }{{"base/site-values.yaml", base}, {"paris/site-values.yaml", site}} {
		if !IsConfig([]byte(f.text)) {
			t.Fatalf("%s is not seen as a HelmValuesTransformer", f.file)
		}
		c, err := Parse(f.file, []byte(f.text))
		if err != nil {
			t.Fatal(err)
		}
		if err := c.Apply([]map[string]any{obj}); err != nil {
			t.Fatal(err)
		}
	}
	want := map[string]any{"image": "base.registry/glance", "pod": map[string]any{"replicas": 3},
		"conf": map[string]any{"ceph": map[string]any{"admin_keyring": "old", "enabled": true}}}
	if got := obj["spec"].(map[string]any)["values"]; !reflect.DeepEqual(got, want) {
		t.Errorf("values = %#v\nwant %#v", got, want)
	}
}

func TestSplitPath(t *testing.T) {
	cases := map[string][]string{
		"a":           {"a"},
		"a.b.c":       {"a", "b", "c"},
		`a\.b.c`:      {"a.b", "c"},
		`a\\.b`:       {`a\`, "b"},
		`x\y`:         {`x\y`},
		"ingress.tls": {"ingress", "tls"},
	}
	for in, want := range cases {
		got, err := SplitPath(in)
		if err != nil || !reflect.DeepEqual(got, want) {
			t.Errorf("SplitPath(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	for _, bad := range []string{"", ".a", "a.", "a..b"} {
		if _, err := SplitPath(bad); err == nil {
			t.Errorf("SplitPath(%q): no error", bad)
		}
	}
}
