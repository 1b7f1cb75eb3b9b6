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

// Package docs checks that README.md and the guides in docs/ keep up with the code they document.
package docs

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/siteops/siteops/test/testenv"
)

// conditionFiles maps each API's conditions file to the kind its troubleshooting rows start with.
var conditionFiles = map[string]string{
	"apis/batch/v1/conditions.go":        "CronJob",
	"apis/webapp/v1/conditions.go":       "Guestbook",
	"apis/gitops/v1alpha1/conditions.go": "SiteSync",
}

// troubleshootingGuide is the guide whose table names every condition and reason.
const troubleshootingGuide = "docs/troubleshooting.md"

// TestTroubleshootingTableNamesEveryConditionAndReason fails when a Condition* or Reason* constant of
// apis/ is missing from docs/troubleshooting.md's table: each needs a row `| Kind | ...` naming its value
// in backquotes, so whoever adds a reason also says what it means and what to do.
func TestTroubleshootingTableNamesEveryConditionAndReason(t *testing.T) {
	root := testenv.RepoRoot()
	guide, err := os.ReadFile(filepath.Join(root, troubleshootingGuide))
	if err != nil {
		t.Fatal(err)
	}
	rows := troubleshootingRows(string(guide))
	if len(rows) == 0 {
		t.Fatalf("%s has no table rows", troubleshootingGuide)
	}
	total := 0
	for file, kind := range conditionFiles {
		consts := conditionConstants(t, filepath.Join(root, file))
		if len(consts) == 0 {
			t.Fatalf("%s: no Condition*/Reason* constants found; is the file still there?", file)
		}
		for _, name := range sortedKeys(consts) {
			value := consts[name]
			total++
			if !anyRowNames(rows[kind], value) {
				t.Errorf("%s: no `| %s |` row names `%s` (%s.%s)", troubleshootingGuide, kind, value, filepath.Dir(file), name)
			}
		}
	}
	t.Logf("%d condition types and reasons checked against the table", total)
}

// troubleshootingRows returns the table rows of the troubleshooting guide by their first cell.
func troubleshootingRows(guide string) map[string][]string {
	rows := map[string][]string{}
	for _, line := range strings.Split(guide, "\n") {
		cells := strings.Split(line, "|")
		if len(cells) < 3 || !strings.HasPrefix(line, "|") {
			continue
		}
		kind := strings.TrimSpace(cells[1])
		rows[kind] = append(rows[kind], line)
	}
	return rows
}

// anyRowNames reports whether one of rows holds `value` in backquotes.
func anyRowNames(rows []string, value string) bool {
	for _, r := range rows {
		if strings.Contains(r, "`"+value+"`") {
			return true
		}
	}
	return false
}

// conditionConstants parses file and returns its string constants named Condition* or Reason*, by name.
func conditionConstants(t *testing.T, file string) map[string]string {
	t.Helper()
	return constantsNamed(t, file, "Condition", "Reason")
}

// constantsNamed parses file and returns its string constants whose names start with one of prefixes, by name.
func constantsNamed(t *testing.T, file string, prefixes ...string) map[string]string {
	t.Helper()
	f, err := parser.ParseFile(token.NewFileSet(), file, nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for _, d := range f.Decls {
		gd, ok := d.(*ast.GenDecl)
		if !ok || gd.Tok != token.CONST {
			continue
		}
		for _, spec := range gd.Specs {
			vs := spec.(*ast.ValueSpec)
			for i, n := range vs.Names {
				if !slices.ContainsFunc(prefixes, func(p string) bool { return strings.HasPrefix(n.Name, p) }) ||
					i >= len(vs.Values) {
					continue
				}
				lit, ok := vs.Values[i].(*ast.BasicLit)
				if !ok || lit.Kind != token.STRING {
					continue
				}
				v, err := strconv.Unquote(lit.Value)
				if err != nil {
					t.Fatal(err)
				}
				out[n.Name] = v
			}
		}
	}
	return out
}

// sortedKeys is for stable messages.
func sortedKeys(m map[string]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
