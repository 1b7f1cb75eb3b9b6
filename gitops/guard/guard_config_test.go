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
	"fmt"
	"testing"

	. "github.com/onsi/gomega"
	"sigs.k8s.io/kustomize/kyaml/kio"
)

// kioConfigReason is configReason as kustomize's own reader sees the objects (kyaml's kio.FromBytes): the
// reference the guard's reader is held to. ok is false when kyaml panics on content (a top-level sequence of
// odd length): the guard's reader must then simply not panic.
func kioConfigReason(content []byte) (reason string, ok bool) {
	defer func() {
		if recover() != nil {
			reason, ok = "", false
		}
	}()
	return kioReason(content), true
}

func kioReason(content []byte) string {
	if !bytes.Contains(content, []byte("config.kubernetes.io/function")) &&
		!bytes.Contains(content, []byte("config.k8s.io/function")) &&
		!bytes.Contains(content, []byte("HelmChartInflationGenerator")) {
		return ""
	}
	nodes, err := kio.FromBytes(content)
	if err != nil {
		return ""
	}
	for _, n := range nodes {
		if n.GetKind() == "HelmChartInflationGenerator" {
			return "HelmChartInflationGenerator configs are not supported: list the chart in helmCharts"
		}
		ann := n.GetAnnotations()
		for _, key := range []string{"config.kubernetes.io/function", "config.k8s.io/function"} {
			if _, ok := ann[key]; ok {
				return fmt.Sprintf("KRM functions (%s annotation, exec or container) are not allowed", key)
			}
		}
	}
	return ""
}

// configCases are configs kustomize may load, plain and contrived.
func configCases() map[string]string {
	fn := "metadata:\n  name: f\n  annotations:\n    config.kubernetes.io/function: |\n      exec: {path: /x}\n"
	return map[string]string{
		"function":             "apiVersion: v1\nkind: Touch\n" + fn,
		"function k8s.io":      "kind: T\nmetadata:\n  annotations:\n    config.k8s.io/function: x\n",
		"function null value":  "kind: T\nmetadata:\n  annotations:\n    config.kubernetes.io/function:\n",
		"function flow style":  `{kind: T, metadata: {annotations: {"config.kubernetes.io/function": "x"}}}`,
		"helm":                 "apiVersion: builtin\nkind: HelmChartInflationGenerator\nmetadata: {name: h}\n",
		"helm quoted":          "kind: \"HelmChartInflationGenerator\"\n",
		"helm tagged":          "kind: !!str HelmChartInflationGenerator\n",
		"second document":      "kind: A\nmetadata: {name: a}\n---\nkind: B\n" + fn,
		"separator comment":    "kind: A\n--- # next\nkind: B\n" + fn,
		"invalid separator":    "kind: A\n--- x\nkind: B\n" + fn,
		"empty documents":      "---\n---\nkind: B\n" + fn + "---\n",
		"null document":        "null\n---\nkind: HelmChartInflationGenerator\n",
		"list":                 "kind: List\nitems:\n- kind: B\n  " + indent(fn),
		"list of helm":         "kind: List\nitems:\n- kind: HelmChartInflationGenerator\n",
		"list no items":        "kind: List\nitems: []\nmetadata:\n  annotations:\n    config.kubernetes.io/function: x\n",
		"list null items":      "kind: List\nitems:\nmetadata:\n  annotations:\n    config.kubernetes.io/function: x\n",
		"resource list config": "kind: ResourceList\nfunctionConfig:\n  kind: HelmChartInflationGenerator\n",
		"list among documents": "kind: A\n---\nkind: List\nitems:\n- kind: HelmChartInflationGenerator\n",
		"alias annotations":    "x: &a {config.kubernetes.io/function: y}\nkind: T\nmetadata:\n  annotations: *a\n",
		"alias kind":           "k: &k HelmChartInflationGenerator\nkind: *k\n",
		"merged metadata":      "base: &m {annotations: {config.kubernetes.io/function: y}}\nmetadata:\n  <<: *m\n",
		"merged annotations":   "a: &a {config.k8s.io/function: y}\nmetadata:\n  annotations:\n    <<: *a\n    x: y\n",
		"merge list":           "a: &a {q: 1}\nb: &b {kind: HelmChartInflationGenerator}\n<<: [*a, *b]\n",
		"own key wins":         "b: &b {kind: HelmChartInflationGenerator}\n<<: *b\nkind: Other\n",
		"duplicate kind":       "kind: Other\nkind: HelmChartInflationGenerator\n",
		"duplicate metadata":   "metadata: {name: a}\nmetadata:\n  annotations: {config.kubernetes.io/function: x}\n",
		"empty metadata first": "metadata: {}\nmetadata:\n  annotations: {config.kubernetes.io/function: x}\n",
		"crlf":                 "kind: A\r\n---\r\nkind: HelmChartInflationGenerator\r\n",
		"sequence":             "- kind: HelmChartInflationGenerator\n",
		"malformed":            "kind: HelmChartInflationGenerator\nmetadata: [x\n",
		"mention only":         "kind: A\ndata:\n  note: config.kubernetes.io/function HelmChartInflationGenerator\n",
		"annotation elsewhere": "kind: A\nspec:\n  annotations:\n    config.kubernetes.io/function: x\n",
	}
}

func indent(s string) string {
	return string(bytes.ReplaceAll([]byte(s), []byte("\n"), []byte("\n  ")))
}

// TestConfigReasonReadsObjectsAsKustomizeDoes holds the guard's YAML reader, which must not link kyaml, to
// kustomize's: every case must get the same verdict both ways.
func TestConfigReasonReadsObjectsAsKustomizeDoes(t *testing.T) {
	refused, compared := 0, 0
	for name, doc := range configCases() {
		got := configReason([]byte(doc))
		want, ok := kioConfigReason([]byte(doc))
		if !ok {
			continue
		}
		compared++
		NewWithT(t).Expect(got).To(Equal(want), "%s:\n%s", name, doc)
		if want != "" {
			refused++
		}
	}
	NewWithT(t).Expect(compared).To(BeNumerically(">=", len(configCases())-1))
	NewWithT(t).Expect(refused).To(BeNumerically(">=", 15), "the cases refuse and pass")
}

// FuzzConfigReason compares the guard's reader with kustomize's on any input.
func FuzzConfigReason(f *testing.F) {
	for _, doc := range configCases() {
		f.Add([]byte(doc))
	}
	f.Fuzz(func(t *testing.T, doc []byte) {
		got := configReason(doc)
		if want, ok := kioConfigReason(doc); ok && got != want {
			t.Fatalf("configReason = %q, kustomize's reader gives %q, for:\n%s", got, want, doc)
		}
	})
}
