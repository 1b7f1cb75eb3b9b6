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
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/siteops/siteops/test/testenv"
)

// guide is one Markdown file the tests check: README.md or a guide under docs/.
type guide struct {
	// path is relative to the repository root, with forward slashes.
	path string
	text string
}

// guides returns README.md and every docs/*.md, sorted by path. It fails the test when docs/ holds no guide,
// so the checks that range over them cannot pass on nothing.
func guides(t *testing.T) []guide {
	t.Helper()
	root := testenv.RepoRoot()
	paths, err := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	if len(paths) == 0 {
		t.Fatal("docs/ has no *.md guide")
	}
	paths = append(paths, filepath.Join(root, "README.md"))
	sort.Strings(paths)
	out := make([]guide, 0, len(paths))
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		rel, err := filepath.Rel(root, p)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, guide{path: filepath.ToSlash(rel), text: string(b)})
	}
	return out
}

// fencedBlock is one ``` block of a Markdown file.
type fencedBlock struct {
	lang  string
	lines []string
}

// splitFences returns the text outside fenced code blocks (fences blanked, so line numbers stay) and the
// blocks themselves.
func splitFences(text string) (prose string, blocks []fencedBlock) {
	var out []string
	var cur *fencedBlock
	for _, line := range strings.Split(text, "\n") {
		trimmed := strings.TrimSpace(line)
		switch {
		case cur == nil && strings.HasPrefix(trimmed, "```"):
			cur = &fencedBlock{lang: strings.TrimSpace(strings.TrimPrefix(trimmed, "```"))}
			out = append(out, "")
		case cur != nil && trimmed == "```":
			blocks = append(blocks, *cur)
			cur = nil
			out = append(out, "")
		case cur != nil:
			cur.lines = append(cur.lines, line)
			out = append(out, "")
		default:
			out = append(out, line)
		}
	}
	if cur != nil {
		blocks = append(blocks, *cur)
	}
	return strings.Join(out, "\n"), blocks
}

var codeSpan = regexp.MustCompile("`[^`\n]+`")

// commandLines returns what a reader may type from a guide: every inline code span of its prose, and every
// line of its fenced blocks but the output lines of a console transcript (those without a leading "$ ").
// Shell comments are cut off.
func commandLines(text string) []string {
	prose, blocks := splitFences(text)
	var out []string
	for _, span := range codeSpan.FindAllString(prose, -1) {
		out = append(out, strings.Trim(span, "`"))
	}
	for _, b := range blocks {
		for _, line := range b.lines {
			line = strings.TrimSpace(line)
			if b.lang == "console" {
				cmd, ok := strings.CutPrefix(line, "$ ")
				if !ok {
					continue
				}
				line = cmd
			}
			if strings.HasPrefix(line, "#") {
				continue
			}
			if i := strings.Index(line, " #"); i >= 0 {
				line = line[:i]
			}
			out = append(out, line)
		}
	}
	return out
}

// shellWords splits a command line into words at blanks and at the shell's separators, which become words of
// their own.
func shellWords(line string) []string {
	for _, sep := range []string{"&&", "||", ";", "|", "(", ")"} {
		line = strings.ReplaceAll(line, sep, " "+sep+" ")
	}
	return strings.Fields(line)
}

// isSeparator reports whether w ends a command.
func isSeparator(w string) bool {
	switch w {
	case "&&", "||", ";", "|", "(", ")":
		return true
	}
	return false
}

// TestGuidesCodeBlocksAreWellFormed fails when a guide opens a fenced block inside another (a fence with a
// language where a closing fence belongs) or leaves one open: either swallows the rest of the guide.
func TestGuidesCodeBlocksAreWellFormed(t *testing.T) {
	for _, g := range guides(t) {
		open := 0
		for i, line := range strings.Split(g.text, "\n") {
			trimmed := strings.TrimSpace(line)
			switch {
			case !strings.HasPrefix(trimmed, "```"):
			case open == 0:
				open = i + 1
			case trimmed == "```":
				open = 0
			default:
				t.Errorf("%s:%d: %q opens a block inside the block opened at line %d", g.path, i+1, trimmed, open)
			}
		}
		if open != 0 {
			t.Errorf("%s:%d: the block opened here is never closed", g.path, open)
		}
	}
}
