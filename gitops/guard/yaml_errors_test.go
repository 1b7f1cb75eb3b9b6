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
	"errors"
	"strings"
	"testing"

	. "github.com/onsi/gomega"
)

// TestYAMLErrorLines: a YAML error is told on the 1-based line a person sees it on in their editor, for the
// scanner's errors and the parser's alike (yaml.v3 counts the parser's from 0), in a values file and in a
// kustomization.
func TestYAMLErrorLines(t *testing.T) {
	// lines is a file of n good lines with bad as line at.
	lines := func(n, at int, bad string) string {
		var b strings.Builder
		for i := 1; i <= n; i++ {
			if i == at {
				b.WriteString(bad + "\n")
				continue
			}
			b.WriteString("k" + strings.Repeat("x", i%7) + string(rune('a'+i%26)) + ": v\n")
		}
		return b.String()
	}
	for name, tc := range map[string]struct {
		content string
		line    int
		msg     string
	}{
		"flow sequence on line 31":  {lines(40, 31, "ports: [80, 443"), 31, "did not find expected ',' or ']'"},
		"flow sequence, first line": {"ports: [80, 443\nb: 1\n", 1, "did not find expected ',' or ']'"},
		"flow sequence, only line":  {"ports: [80, 443", 1, "did not find expected ',' or ']'"},
		"flow sequence, last line":  {lines(10, 10, "ports: [80, 443"), 10, "did not find expected ',' or ']'"},
		"flow mapping, middle":      {lines(9, 5, "labels: {a: b"), 5, "did not find expected ',' or '}'"},
		"mapping value, first line": {"a: b: c\nd: e\n", 1, "mapping values are not allowed"},
		"mapping value, middle":     {lines(9, 4, "a: b: c"), 4, "mapping values are not allowed"},
		"mapping value, last line":  {lines(10, 10, "a: b: c"), 10, "mapping values are not allowed"},
		"block sequence, middle":    {"a:\n  - 1\n  - 2\n b: 3\n", 4, "did not find expected key"},
		"second document": {"a: 1\nb: 2\n---\nc: 3\nd: [1, 2\ne: 4\n", 5,
			"did not find expected ',' or ']'"},
	} {
		t.Run(name, func(t *testing.T) {
			g := NewWithT(t)
			_, err := yamlObjects([]byte(tc.content))
			var yerr *YAMLError
			g.Expect(errors.As(err, &yerr)).To(BeTrue(), "%v", err)
			g.Expect(yerr.Line).To(Equal(tc.line), "%v", err)
			g.Expect(yerr.Msg).To(ContainSubstring(tc.msg))
		})
	}
	for name, tc := range map[string]struct {
		content string
		line    int
	}{
		"kustomization, flow sequence on line 3": {"namePrefix: a-\nnamespace: b\nresources: [../../base\n", 3},
		"kustomization, mapping value on line 2": {"namespace: b\nnamePrefix: a: b\n", 2},
	} {
		t.Run(name, func(t *testing.T) {
			g := NewWithT(t)
			_, err := parseKustomization([]byte(tc.content))
			var yerr *YAMLError
			g.Expect(errors.As(err, &yerr)).To(BeTrue(), "%v", err)
			g.Expect(yerr.Line).To(Equal(tc.line), "%v", err)
		})
	}
}
