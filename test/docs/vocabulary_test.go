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
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	gitopsv1alpha1 "github.com/siteops/siteops/apis/gitops/v1alpha1"
	"github.com/siteops/siteops/test/testenv"
)

// deliveredCount is the summary of delivered sites in any casing, as in "Delivered 3/3" or "delivered N/N".
var deliveredCount = regexp.MustCompile(`(?i)\b(delivered)\s+(?:\d+|N)/(?:\d+|N)\b`)

// parenthesised is a list in parentheses, as in "(Pending, Published, Delivered)".
var parenthesised = regexp.MustCompile(`\(([^()\n]*,[^()\n]*)\)`)

// stateWords are the words a person reads for where a site or a rollout is (apis/gitops/v1alpha1's vocabulary).
func stateWords() []string {
	return slices.Concat(gitopsv1alpha1.SiteStates(), gitopsv1alpha1.DeliveryStates(), gitopsv1alpha1.RolloutPhases())
}

// listItems are the first words of the items of a list "A, B, or C with more" (without "or", "and", "…"), each
// item read after its colon if it has one.
func listItems(list string) []string {
	var out []string
	for _, item := range strings.Split(list, ",") {
		if _, after, ok := strings.Cut(item, ":"); ok { // "`status.sites[].delivery`: Pending"
			item = after
		}
		f := strings.Fields(item)
		if len(f) > 0 && (f[0] == "or" || f[0] == "and") {
			f = f[1:]
		}
		if len(f) == 0 || f[0] == "…" || f[0] == "..." {
			continue
		}
		out = append(out, strings.Trim(f[0], "`"))
	}
	return out
}

// TestGuidesSpeakTheVocabulary: the README and the guides name the states of sites and rollouts with the
// vocabulary's words only (SiteStates, DeliveryStates, RolloutPhases of apis/gitops/v1alpha1), as `siteops
// status` and the dashboard show them: the summary is "Delivered N/M", a list of states holds no synonym
// (such as Healthy for Delivered), and the dashboard guide's cell table names only site states.
func TestGuidesSpeakTheVocabulary(t *testing.T) {
	words := stateWords()
	for _, g := range guides(t) {
		for i, line := range strings.Split(g.text, "\n") {
			for _, m := range deliveredCount.FindAllStringSubmatch(line, -1) {
				if m[1] != string(gitopsv1alpha1.DeliveryDelivered) {
					t.Errorf("%s:%d: %q: the summary is %q, as siteops status prints it", g.path, i+1, m[0],
						gitopsv1alpha1.DeliveryDelivered)
				}
			}
			for _, m := range parenthesised.FindAllStringSubmatch(line, -1) {
				items := listItems(m[1])
				known := 0
				for _, w := range items {
					if slices.Contains(words, w) {
						known++
					}
				}
				if known < 2 {
					continue // not a list of states
				}
				for _, w := range items {
					if !slices.Contains(words, w) {
						t.Errorf("%s:%d: %q in the list of states (%s) is not a word of the vocabulary %v", g.path,
							i+1, w, m[1], words)
					}
				}
			}
		}
	}
}

// TestDashboardGuideNamesTheCellsStates: each cell of docs/dashboard.md's table is a site state a cell shows.
func TestDashboardGuideNamesTheCellsStates(t *testing.T) {
	var text string
	for _, g := range guides(t) {
		if g.path == "docs/dashboard.md" {
			text = g.text
		}
	}
	in, rows := false, 0
	for _, line := range strings.Split(text, "\n") {
		switch {
		case strings.HasPrefix(line, "| cell |"):
			in = true
		case in && strings.HasPrefix(line, "|---"):
		case in && strings.HasPrefix(line, "|"):
			rows++
			for _, w := range strings.Split(strings.Split(line, "|")[1], "/") {
				if w = strings.TrimSpace(w); !slices.Contains(gitopsv1alpha1.SiteStates(), w) {
					t.Errorf("docs/dashboard.md: cell %q is not one of %v", w, gitopsv1alpha1.SiteStates())
				}
			}
		default:
			in = false
		}
	}
	if rows == 0 {
		t.Fatal("docs/dashboard.md has no `| cell |` table")
	}
}

// TestGuidesNameEveryEvent: every event reason of apis/ is named, in backquotes, in the README or a guide,
// so a person who reads one in `kubectl get events` finds what it means.
func TestGuidesNameEveryEvent(t *testing.T) {
	root := testenv.RepoRoot()
	files, err := filepath.Glob(filepath.Join(root, "apis", "*", "*", "*.go"))
	if err != nil {
		t.Fatal(err)
	}
	var all strings.Builder
	for _, g := range guides(t) {
		all.WriteString(g.text)
	}
	n := 0
	for _, f := range files {
		for name, value := range constantsNamed(t, f, "Event") {
			n++
			if !strings.Contains(all.String(), "`"+value+"`") {
				t.Errorf("%s.%s: no guide names `%s`", filepath.Base(f), name, value)
			}
		}
	}
	if n == 0 {
		t.Fatal("no Event* constants found in apis/")
	}
}
