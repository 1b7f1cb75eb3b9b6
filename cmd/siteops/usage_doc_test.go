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

package main

import (
	"go/parser"
	"go/token"
	"strings"
	"testing"

	. "github.com/onsi/gomega"
)

// TestPackageDocShowsUsage keeps the command lines of the package comment (go doc, pkg.go.dev) the same as
// those `siteops help` prints.
func TestPackageDocShowsUsage(t *testing.T) {
	g := NewWithT(t)
	f, err := parser.ParseFile(token.NewFileSet(), "main.go", nil, parser.ParseComments|parser.PackageClauseOnly)
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(f.Doc).NotTo(BeNil(), "main.go has a package comment")
	g.Expect(commandLines(f.Doc.Text())).To(Equal(commandLines(usageHeader)))
}

// commandLines returns the indented lines of text that start with "siteops ", indentation trimmed: the
// command lines of the usage text, not its prose.
func commandLines(text string) []string {
	var out []string
	for _, l := range strings.Split(text, "\n") {
		if t := strings.TrimLeft(l, " \t"); t != l && strings.HasPrefix(t, "siteops ") {
			out = append(out, strings.TrimSpace(t))
		}
	}
	return out
}
