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
	"testing"

	. "github.com/onsi/gomega"
	"sigs.k8s.io/kustomize/api/provider"
	"sigs.k8s.io/kustomize/api/resmap"
)

// yamlSeeds are resources whose scalars and shapes take every branch of asYAML: numbers YAML and JSON print
// differently, tagged and quoted scalars, block strings, unicode, and the shapes it hands to kustomize.
var yamlSeeds = []string{
	"apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: n\ndata:\n  a: \"1\"\n  b: 'true'\n  c: \"\"\n",
	"apiVersion: v1\nkind: X\nmetadata:\n  name: n\nspec:\n  i: 3\n  f: 1.0\n  g: 1.5\n  e: 1e3\n  h: 0x1F\n" +
		"  o: 0o17\n  big: 123456789012345678901234567890\n  neg: -0\n  inf: .inf\n  nan: .nan\n",
	"apiVersion: v1\nkind: X\nmetadata:\n  name: n\nspec:\n  t: true\n  T: True\n  y: yes\n  n: ~\n  nn: null\n" +
		"  empty:\n  m: {}\n  s: []\n  ts: 2001-12-14t21:59:43.10-05:00\n  d: 2002-12-14\n",
	"apiVersion: v1\nkind: X\nmetadata:\n  name: n\nspec:\n  lit: |\n    line one\n    line two\n  fold: >-\n" +
		"    folded\n    text\n  trail: \"x  \"\n  colon: \"a: b\"\n  hash: \"a #b\"\n  quote: \"it's \\\"q\\\"\"\n",
	"apiVersion: v1\nkind: X\nmetadata:\n  name: n\n  annotations:\n    u: \"café ✓ 😀\"\n    del: \"a\\x7fb\"\n" +
		"    nel: \"a\\x85b\"\n    ctl: \"a\\x01b\"\n    tab: \"a\\tb\"\n    cr: \"a\\rb\"\n    html: \"<a&b>\"\n",
	"apiVersion: v1\nkind: X\nmetadata:\n  name: n\nspec:\n  base: &b {x: 1}\n  ref: *b\n  merged:\n    <<: *b\n" +
		"    y: 2\n",
	"apiVersion: v1\nkind: X\nmetadata:\n  name: n\nspec:\n  1: one\n  ? [a]\n  : seq\n",
	"apiVersion: v1\nkind: X\nmetadata:\n  name: n\nspec:\n  tagged: !!str 12\n  custom: !thing x\n" +
		"  bin: !!binary aGk=\n  list:\n  - a\n  - - b\n    - 2\n  - {k: v}\n  - null\n",
	"apiVersion: v1\nkind: X\nmetadata:\n  name: n\nspec:\n  \"quoted key\": v\n  \"123\": num\n  \"true\": b\n" +
		"  z: 1\n  a10: x\n  a9: y\n  A: z\n",
	"apiVersion: v1\nkind: X\nmetadata:\n  name: n\nrules:\n- {apiGroups: [\"\", apps], q: '', e: }\n- [\"\", ~, ]\n",
}

// resMapOf parses a YAML stream into a ResMap as kustomize reads resources.
func resMapOf(text string) (resmap.ResMap, error) {
	f := resmap.NewFactory(provider.NewDepProvider().GetResourceFactory())
	return f.NewResMapFromBytes([]byte(text))
}

func TestAsYAMLPrintsTheBytesOfKustomizesAsYaml(t *testing.T) {
	for _, seed := range yamlSeeds {
		g := NewWithT(t)
		m, err := resMapOf(seed)
		g.Expect(err).NotTo(HaveOccurred(), seed)
		want, wantErr := m.AsYaml()
		got, err := asYAML(m)
		if wantErr != nil {
			g.Expect(err).To(HaveOccurred(), seed)
			continue
		}
		g.Expect(err).NotTo(HaveOccurred(), seed)
		g.Expect(string(got)).To(Equal(string(want)), seed)
	}
}

func TestAsYAMLTakesItsOwnPathForPlainResources(t *testing.T) {
	g := NewWithT(t)
	m, err := resMapOf(yamlSeeds[0])
	g.Expect(err).NotTo(HaveOccurred())
	for _, r := range m.Resources() {
		_, ok := resourceYAML(r)
		g.Expect(ok).To(BeTrue(), "a plain ConfigMap must not need kustomize's round trip")
	}
	intKeys, err := resMapOf(yamlSeeds[6])
	g.Expect(err).NotTo(HaveOccurred())
	_, ok := resourceYAML(intKeys.Resources()[0])
	g.Expect(ok).To(BeFalse(), "keys that are not strings are left to kustomize")
}

// unstableOrder reports whether kustomize's AsYaml prints got for m on some run: yaml.v2 sorts some mixes of
// keys (digits next to letters) in map order, so kustomize's own output then changes from run to run.
func unstableOrder(m resmap.ResMap, got []byte) bool {
	for range 200 {
		if again, _ := m.AsYaml(); string(again) == string(got) {
			return true
		}
	}
	return false
}

func FuzzAsYAML(f *testing.F) {
	for _, s := range yamlSeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		m, err := resMapOf(text)
		if err != nil {
			return
		}
		want, wantErr := m.AsYaml()
		got, err := asYAML(m)
		if (err != nil) != (wantErr != nil) {
			t.Fatalf("asYAML error %v, kustomize's %v", err, wantErr)
		}
		if string(got) != string(want) && !unstableOrder(m, got) {
			t.Fatalf("asYAML printed\n%s\nkustomize\n%s", got, want)
		}
	})
}
