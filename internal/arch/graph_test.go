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

package arch

import (
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

const (
	modulePath = "github.com/siteops/siteops"
	// graphDoc holds the package graph between graphBegin and graphEnd, one table row a package.
	graphDoc   = "docs/architecture.md"
	graphBegin = "<!-- package graph: begin -->"
	graphEnd   = "<!-- package graph: end -->"
)

// TestArchitectureDocMatchesTheImports fails when the package graph of docs/architecture.md (each product
// package and the siteops packages it imports, tests excluded) differs from what `go list` reports, and
// prints the table to paste.
func TestArchitectureDocMatchesTheImports(t *testing.T) {
	root := moduleRoot(t)
	want := graphRows(t, root)
	doc, err := os.ReadFile(filepath.Join(root, graphDoc))
	if err != nil {
		t.Fatal(err)
	}
	text := string(doc)
	begin, end := strings.Index(text, graphBegin), strings.Index(text, graphEnd)
	if begin < 0 || end < begin {
		t.Fatalf("%s has no %s … %s block", graphDoc, graphBegin, graphEnd)
	}
	var got []string
	for _, line := range strings.Split(text[begin+len(graphBegin):end], "\n") {
		if strings.HasPrefix(line, "| `") {
			got = append(got, line)
		}
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("%s is out of step with the code; its table should read:\n%s", graphDoc, strings.Join(want, "\n"))
	}
}

// graphRows lists, sorted, one Markdown row per product package (test/ and hack/ left out): the package and
// the siteops packages its non-test files import.
func graphRows(t *testing.T, root string) []string {
	t.Helper()
	cmd := exec.Command("go", "list", "-f", `{{.ImportPath}}{{range .Imports}} {{.}}{{end}}`, "./...")
	cmd.Dir = root
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	var rows []string
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		fields := strings.Fields(line)
		pkg := strings.TrimPrefix(strings.TrimPrefix(fields[0], modulePath), "/")
		if pkg == "" || strings.HasPrefix(pkg, "test/") || strings.HasPrefix(pkg, "hack/") {
			continue
		}
		var deps []string
		for _, imp := range fields[1:] {
			if dep, ok := strings.CutPrefix(imp, modulePath+"/"); ok {
				deps = append(deps, "`"+dep+"`")
			}
		}
		sort.Strings(deps)
		imports := "—"
		if len(deps) > 0 {
			imports = strings.Join(deps, ", ")
		}
		rows = append(rows, "| `"+pkg+"` | "+imports+" |")
	}
	sort.Strings(rows)
	return rows
}
