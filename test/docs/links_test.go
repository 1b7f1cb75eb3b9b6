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
	"path"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"unicode"

	"github.com/siteops/siteops/test/testenv"
)

// markdownLink matches [text](target) and [text](target "title"); group 1 is the target.
var markdownLink = regexp.MustCompile(`\[[^\]\n]*\]\(([^)\s]+)(?:\s+"[^"]*")?\)`)

// urlScheme matches a target that leaves the repository (https:, mailto:, …).
var urlScheme = regexp.MustCompile(`^[a-zA-Z][a-zA-Z0-9+.-]*:`)

// TestRelativeLinksResolve fails when a relative link of README.md or a guide in docs/ names a file or folder
// that does not exist, or a #fragment that is no heading of the Markdown file it points into.
func TestRelativeLinksResolve(t *testing.T) {
	root := testenv.RepoRoot()
	checked := 0
	for _, g := range guides(t) {
		prose, _ := splitFences(g.text)
		for _, m := range markdownLink.FindAllStringSubmatch(prose, -1) {
			target := m[1]
			if urlScheme.MatchString(target) {
				continue
			}
			checked++
			file, fragment, _ := strings.Cut(target, "#")
			rel := g.path
			if file != "" {
				rel = path.Clean(path.Join(path.Dir(g.path), file))
				if rel == ".." || strings.HasPrefix(rel, "../") {
					t.Errorf("%s: link %q leaves the repository", g.path, target)
					continue
				}
				if _, err := os.Stat(filepath.Join(root, filepath.FromSlash(rel))); err != nil {
					t.Errorf("%s: link %q: %s does not exist", g.path, target, rel)
					continue
				}
			}
			if fragment == "" {
				continue
			}
			if !strings.HasSuffix(rel, ".md") {
				t.Errorf("%s: link %q: a #fragment into %s, which is not Markdown", g.path, target, rel)
				continue
			}
			b, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(rel)))
			if err != nil {
				t.Errorf("%s: link %q: %v", g.path, target, err)
				continue
			}
			if !headingAnchors(string(b))[fragment] {
				t.Errorf("%s: link %q: %s has no heading with anchor #%s", g.path, target, rel, fragment)
			}
		}
	}
	if checked == 0 {
		t.Fatal("no relative link found in README.md or docs/")
	}
	t.Logf("%d relative links checked", checked)
}

// headingAnchors returns the anchors GitHub gives the headings of a Markdown text.
func headingAnchors(text string) map[string]bool {
	prose, _ := splitFences(text)
	anchors := map[string]bool{}
	seen := map[string]int{}
	for _, line := range strings.Split(prose, "\n") {
		if !strings.HasPrefix(line, "#") {
			continue
		}
		title := strings.TrimSpace(strings.TrimLeft(line, "#"))
		slug := headingSlug(title)
		if n := seen[slug]; n > 0 {
			anchors[slug+"-"+strconv.Itoa(n)] = true
		} else {
			anchors[slug] = true
		}
		seen[slug]++
	}
	return anchors
}

// headingSlug is GitHub's anchor of a heading: lower case, letters, digits, '-' and '_' kept, spaces to '-',
// everything else dropped.
func headingSlug(title string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(title) {
		switch {
		case unicode.IsLetter(r) || unicode.IsDigit(r) || r == '-' || r == '_':
			b.WriteRune(r)
		case r == ' ':
			b.WriteRune('-')
		}
	}
	return b.String()
}

// TestHeadingSlug checks the anchors the link check expects against headings of these guides.
func TestHeadingSlug(t *testing.T) {
	for title, want := range map[string]string{
		"Upgrade one site":                              "upgrade-one-site",
		"The upgrade's hand-off":                        "the-upgrades-hand-off",
		"`make run`":                                    "make-run",
		"Sharding: several managers":                    "sharding-several-managers",
		"Review a change on every site (pull requests)": "review-a-change-on-every-site-pull-requests",
	} {
		if got := headingSlug(title); got != want {
			t.Errorf("headingSlug(%q) = %q, want %q", title, got, want)
		}
	}
}
