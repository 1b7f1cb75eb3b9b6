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

package sitediff

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	. "github.com/onsi/gomega"
)

func cm(name, ns, color string) string {
	meta := "  name: " + name + "\n"
	if ns != "" {
		meta += "  namespace: " + ns + "\n"
	}
	return "apiVersion: v1\nkind: ConfigMap\nmetadata:\n" + meta + "data:\n  color: " + color + "\n"
}

func stream(docs ...string) SiteOutput { return SiteOutput{YAML: []byte(strings.Join(docs, "---\n"))} }

func TestDiffSites(t *testing.T) {
	web := ObjectID{APIVersion: "v1", Kind: "ConfigMap", Name: "web"}
	webProd := ObjectID{APIVersion: "v1", Kind: "ConfigMap", Namespace: "prod", Name: "web"}
	extra := ObjectID{APIVersion: "v1", Kind: "ConfigMap", Name: "extra"}
	for _, tc := range []struct {
		name          string
		base, head    map[string]SiteOutput
		wantSites     []SiteDiff // Diff texts are checked apart
		wantUnchanged []string
		wantDiffHas   string // substring of the first changed object's diff
	}{
		{
			name:          "nothing changes",
			base:          map[string]SiteOutput{"dev": stream(cm("web", "", "blue"))},
			head:          map[string]SiteOutput{"dev": stream(cm("web", "", "blue"))},
			wantUnchanged: []string{"dev"},
		},
		{
			name:          "document order does not matter",
			base:          map[string]SiteOutput{"dev": stream(cm("web", "", "blue"), cm("extra", "", "red"))},
			head:          map[string]SiteOutput{"dev": stream(cm("extra", "", "red"), cm("web", "", "blue"))},
			wantUnchanged: []string{"dev"},
		},
		{
			name: "one object changes, one is added, one removed",
			base: map[string]SiteOutput{"dev": stream(cm("web", "", "blue"), cm("web", "prod", "x")),
				"prod": stream(cm("web", "", "blue"))},
			head: map[string]SiteOutput{"dev": stream(cm("web", "", "green"), cm("extra", "", "red")),
				"prod": stream(cm("web", "", "blue"))},
			wantSites: []SiteDiff{{Site: "dev", Added: []ObjectID{extra}, Removed: []ObjectID{webProd},
				Changed: []ObjectChange{{ID: web}}}},
			wantUnchanged: []string{"prod"},
			wantDiffHas:   "-  color: blue\n+  color: green\n",
		},
		{
			name:      "the namespace is part of the identity",
			base:      map[string]SiteOutput{"dev": stream(cm("web", "", "blue"))},
			head:      map[string]SiteOutput{"dev": stream(cm("web", "prod", "blue"))},
			wantSites: []SiteDiff{{Site: "dev", Added: []ObjectID{webProd}, Removed: []ObjectID{web}}},
		},
		{
			name:      "a new site adds all its objects",
			base:      map[string]SiteOutput{},
			head:      map[string]SiteOutput{"edge": stream(cm("web", "", "blue"))},
			wantSites: []SiteDiff{{Site: "edge", New: true, Added: []ObjectID{web}}},
		},
		{
			name:      "a deleted site removes all its objects",
			base:      map[string]SiteOutput{"edge": stream(cm("web", "", "blue"))},
			head:      map[string]SiteOutput{},
			wantSites: []SiteDiff{{Site: "edge", Gone: true, Removed: []ObjectID{web}}},
		},
		{
			name:      "a site that fails at head is reported, not compared",
			base:      map[string]SiteOutput{"dev": stream(cm("web", "", "blue"))},
			head:      map[string]SiteOutput{"dev": {Err: errors.New("kustomize: missing patch")}},
			wantSites: []SiteDiff{{Site: "dev", Failed: "at HEAD: kustomize: missing patch"}},
		},
		{
			name:          "an empty site stays empty",
			base:          map[string]SiteOutput{"dev": {}},
			head:          map[string]SiteOutput{"dev": {YAML: []byte("\n")}},
			wantUnchanged: []string{"dev"},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g := NewWithT(t)
			d, err := DiffSites("main", "HEAD", tc.base, tc.head)
			g.Expect(err).NotTo(HaveOccurred())
			g.Expect(d.Unchanged).To(Equal(tc.wantUnchanged))
			g.Expect(d.Changed()).To(Equal(len(tc.wantSites) > 0))
			var got []SiteDiff
			for _, s := range d.Sites {
				changed := s.Changed
				s.Changed = nil
				for _, c := range changed {
					s.Changed = append(s.Changed, ObjectChange{ID: c.ID})
				}
				got = append(got, s)
			}
			g.Expect(got).To(Equal(tc.wantSites))
			if tc.wantDiffHas != "" {
				g.Expect(d.Sites[0].Changed[0].Diff).To(ContainSubstring(tc.wantDiffHas))
				g.Expect(d.Sites[0].Changed[0].Diff).To(HavePrefix("--- main\n+++ HEAD\n"))
			}
		})
	}
}

func TestDiffSitesRefusesYAMLThatIsNotObjects(t *testing.T) {
	_, err := DiffSites("a", "b", map[string]SiteOutput{"dev": {YAML: []byte("a: [\n")}}, nil)
	NewWithT(t).Expect(err).To(MatchError(ContainSubstring("site dev at a: parsing the rendered YAML")))
}

func TestSitesDiffTextAndMarkdown(t *testing.T) {
	g := NewWithT(t)
	d, err := DiffSites("main", "feature",
		map[string]SiteOutput{"dev": stream(cm("web", "", "blue")), "prod": stream(cm("web", "", "blue")),
			"old": stream(cm("web", "", "blue"))},
		map[string]SiteOutput{"dev": stream(cm("web", "", "green"), cm("extra", "apps", "red")),
			"prod": stream(cm("web", "", "blue")), "broken": {Err: errors.New("bad | overlay")}})
	g.Expect(err).NotTo(HaveOccurred())

	g.Expect(d.Text()).To(Equal(`siteops diff main..feature: 3 of 4 sites change

site broken: failed to render at feature: bad | overlay

site dev: 1 added, 1 changed
  + ConfigMap apps/extra (v1)
  ~ ConfigMap web (v1)
      --- main
      +++ feature
      @@ -3,4 +3,4 @@
       metadata:
         name: web
       data:
      -  color: blue
      +  color: green

site old: site removed, 1 removed
  - ConfigMap web (v1)

unchanged: prod
`))
	md := d.Markdown()
	g.Expect(md).To(HavePrefix("### siteops: rendered changes `main` → `feature`\n\n**3 of 4 sites change** · " +
		"unchanged: prod\n"))
	g.Expect(md).To(ContainSubstring("| `broken` | failed to render at feature: bad \\| overlay |\n"))
	g.Expect(md).To(ContainSubstring("| `dev` | 1 added, 1 changed |\n"))
	g.Expect(md).To(ContainSubstring("| added | ConfigMap | apps | extra | v1 |\n"))
	g.Expect(md).To(ContainSubstring("| changed | ConfigMap |  | web | v1 |\n"))
	g.Expect(md).To(ContainSubstring("<details><summary>ConfigMap web (v1)</summary>\n\n```diff\n--- main\n+++ feature\n"))
	g.Expect(md).To(ContainSubstring("| removed | ConfigMap |  | web | v1 |\n"))

	none, err := DiffSites("a", "b", map[string]SiteOutput{"dev": stream(cm("web", "", "blue"))},
		map[string]SiteOutput{"dev": stream(cm("web", "", "blue"))})
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(none.Text()).To(Equal("siteops diff a..b: no site changes (1 site compared)\n\nunchanged: dev\n"))
	g.Expect(none.Markdown()).To(Equal("### siteops: rendered changes `a` → `b`\n\n**no site changes (1 site " +
		"compared)** · unchanged: dev\n"))
}

func TestClipDiffKeepsTheFirstLinesAndCountsTheRest(t *testing.T) {
	g := NewWithT(t)
	long := strings.Repeat("+x\n", maxDiffLines+10)
	clipped := clipDiff(long)
	g.Expect(strings.Count(clipped, "+x\n")).To(Equal(maxDiffLines))
	g.Expect(clipped).To(HaveSuffix("... 10 more lines\n"))
	g.Expect(clipDiff("+a\n")).To(Equal("+a\n"))
}

func TestMarkdownLeavesTheDiffsOutWhenTheyWouldNotFitInAComment(t *testing.T) {
	g := NewWithT(t)
	base, head := map[string]SiteOutput{}, map[string]SiteOutput{}
	for i := range 300 {
		site := fmt.Sprintf("site-%03d", i)
		big := strings.Repeat("x", 300)
		base[site] = stream(cm("web", "", big+"a"), cm("other", "", "1"))
		head[site] = stream(cm("web", "", big+"b"), cm("other", "", "2"))
	}
	d, err := DiffSites("main", "pr", base, head)
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(len(d.markdown(true))).To(BeNumerically(">", maxMarkdown), "the case is big enough")
	md := d.Markdown()
	g.Expect(len(md)).To(BeNumerically("<=", maxMarkdown))
	g.Expect(md).NotTo(ContainSubstring("<details>"))
	g.Expect(md).To(ContainSubstring("| changed | ConfigMap |  | web | v1 |"), "the tables stay")
	g.Expect(md).To(HaveSuffix("`siteops diff --base main --head pr` prints them._\n"))
}
