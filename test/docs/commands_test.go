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

package docs

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/siteops/siteops/test/testenv"
)

// makeTarget matches a rule of the Makefile; group 1 is its target.
var makeTarget = regexp.MustCompile(`(?m)^([A-Za-z0-9][A-Za-z0-9_.-]*):`)

// makeGoal is a word of a make command that names a goal (not VAR=value, not a flag).
var makeGoal = regexp.MustCompile(`^[a-z][a-z0-9-]*$`)

// TestGuidesNameMakeTargetsThatExist fails when README.md or a guide tells the reader to run `make X` and the
// Makefile has no target X.
func TestGuidesNameMakeTargetsThatExist(t *testing.T) {
	b, err := os.ReadFile(filepath.Join(testenv.RepoRoot(), "Makefile"))
	if err != nil {
		t.Fatal(err)
	}
	targets := map[string]bool{}
	for _, m := range makeTarget.FindAllStringSubmatch(string(b), -1) {
		targets[m[1]] = true
	}
	checked := 0
	for _, g := range guides(t) {
		for _, line := range commandLines(g.text) {
			words := shellWords(line)
			for i, w := range words {
				if w != "make" {
					continue
				}
				for _, goal := range words[i+1:] {
					if isSeparator(goal) || !makeGoal.MatchString(goal) {
						break
					}
					checked++
					if !targets[goal] {
						t.Errorf("%s: `%s`: the Makefile has no target %q", g.path, line, goal)
					}
				}
			}
		}
	}
	if checked == 0 {
		t.Fatal("no make command found in README.md or docs/")
	}
	t.Logf("%d make goals checked against the Makefile", checked)
}

// usageLine matches a line of siteops' usage; group 1 is the subcommand, group 2 the rest.
var usageLine = regexp.MustCompile(`(?m)^\s*siteops ([a-z]+)(.*)$`)

// usageFlag matches a flag in a usage line or a command.
var usageFlag = regexp.MustCompile(`(?:^|[\s\[|])(--?[A-Za-z][A-Za-z0-9-]*)`)

// TestGuidesRunSiteopsCommandsItKnows fails when README.md or a guide runs `siteops <command>` with a command
// or a flag that siteops' usage (cmd/siteops, kept in step with its flags by its own tests) does not list.
func TestGuidesRunSiteopsCommandsItKnows(t *testing.T) {
	flags := siteopsUsage(t)
	checked := 0
	for _, g := range guides(t) {
		for _, line := range commandLines(g.text) {
			words := shellWords(line)
			for i := 0; i+1 < len(words); i++ {
				w := strings.Trim(words[i], `"'`)
				if w != "siteops" && !strings.HasSuffix(w, "/siteops") || !makeGoal.MatchString(words[i+1]) {
					continue
				}
				cmd := words[i+1]
				known, ok := flags[cmd]
				checked++
				if !ok {
					t.Errorf("%s: `%s`: siteops has no command %q", g.path, line, cmd)
					continue
				}
				for _, arg := range words[i+2:] {
					if isSeparator(arg) {
						break
					}
					name, _, _ := strings.Cut(arg, "=")
					if strings.HasPrefix(name, "-") && !known[name] {
						t.Errorf("%s: `%s`: siteops %s has no flag %s", g.path, line, cmd, name)
					}
				}
			}
		}
	}
	if checked == 0 {
		t.Fatal("no siteops command found in README.md or docs/")
	}
	t.Logf("%d siteops commands checked against its usage", checked)
}

// siteopsUsage parses cmd/siteops' usage text and returns each command's flags.
func siteopsUsage(t *testing.T) map[string]map[string]bool {
	t.Helper()
	file := filepath.Join(testenv.RepoRoot(), "cmd", "siteops", "main.go")
	f, err := parser.ParseFile(token.NewFileSet(), file, nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	var usage string
	ast.Inspect(f, func(n ast.Node) bool {
		vs, ok := n.(*ast.ValueSpec)
		if !ok {
			return true
		}
		for i, name := range vs.Names {
			if name.Name != "usageHeader" || i >= len(vs.Values) {
				continue
			}
			if lit, ok := vs.Values[i].(*ast.BasicLit); ok && lit.Kind == token.STRING {
				if usage, err = strconv.Unquote(lit.Value); err != nil {
					t.Fatal(err)
				}
			}
		}
		return true
	})
	out := map[string]map[string]bool{}
	for _, m := range usageLine.FindAllStringSubmatch(usage, -1) {
		if out[m[1]] == nil {
			out[m[1]] = map[string]bool{}
		}
		for _, f := range usageFlag.FindAllStringSubmatch(m[2], -1) {
			out[m[1]][f[1]] = true
		}
	}
	if len(out) == 0 {
		t.Fatalf("%s: no usage line `siteops <command>` in usageHeader; has it moved?", file)
	}
	return out
}

// testName matches the name of a Go test, benchmark or fuzz target.
var testName = regexp.MustCompile(`\b(?:Test|Benchmark|Fuzz)[A-Z][A-Za-z0-9_]*\b`)

// testFunc matches the declaration of one; group 1 is its name.
var testFunc = regexp.MustCompile(`(?m)^func ((?:Test|Benchmark|Fuzz)[A-Z][A-Za-z0-9_]*)\(`)

// TestGuidesCiteTestsThatExist fails when README.md or a guide cites a test, benchmark or fuzz target that no
// _test.go file declares: the guides' transcripts and claims point at the tests that show them, so a renamed
// or removed test must take its citation with it.
func TestGuidesCiteTestsThatExist(t *testing.T) {
	root := testenv.RepoRoot()
	declared := map[string]bool{}
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == ".git" || d.Name() == "bin" || d.Name() == "dist") {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(p, "_test.go") {
			return nil
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		for _, m := range testFunc.FindAllStringSubmatch(string(b), -1) {
			declared[m[1]] = true
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	cited := 0
	for _, g := range guides(t) {
		for _, name := range testName.FindAllString(g.text, -1) {
			cited++
			if !declared[name] {
				t.Errorf("%s cites %s, which no _test.go declares", g.path, name)
			}
		}
	}
	if cited == 0 {
		t.Fatal("README.md and docs/ cite no test")
	}
	t.Logf("%d citations checked against %d declared tests", cited, len(declared))
}
