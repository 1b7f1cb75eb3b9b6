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
	"fmt"
	"strings"
)

// maxDiffLines bounds the diff shown per changed object, so a PR comment stays readable (and under the size
// limits of Git hosts); the rest is counted.
const maxDiffLines = 80

// summary is "2 of 5 sites change" or "no site changes".
func (d SitesDiff) summary() string {
	total := len(d.Sites) + len(d.Unchanged)
	if len(d.Sites) == 0 {
		return fmt.Sprintf("no site changes (%d %s compared)", total, plural(total, "site", "sites"))
	}
	return fmt.Sprintf("%d of %d %s change", len(d.Sites), total, plural(total, "site", "sites"))
}

// counts is "1 added, 2 changed" for a site.
func (s SiteDiff) counts() string {
	var parts []string
	switch {
	case s.Failed != "":
		return "failed to render " + s.Failed
	case s.New:
		parts = append(parts, "new site")
	case s.Gone:
		parts = append(parts, "site removed")
	}
	for _, c := range []struct {
		n    int
		what string
	}{{len(s.Added), "added"}, {len(s.Removed), "removed"}, {len(s.Changed), "changed"}} {
		if c.n > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", c.n, c.what))
		}
	}
	return strings.Join(parts, ", ")
}

// Text is the diff for a terminal: a summary line, then per site its objects (+ added, - removed, ~ changed,
// each changed object followed by its unified diff).
func (d SitesDiff) Text() string {
	var b strings.Builder
	fmt.Fprintf(&b, "siteops diff %s..%s: %s\n", d.Base, d.Head, d.summary())
	for _, s := range d.Sites {
		fmt.Fprintf(&b, "\nsite %s: %s\n", s.Site, s.counts())
		for _, id := range s.Added {
			fmt.Fprintf(&b, "  + %s\n", id)
		}
		for _, id := range s.Removed {
			fmt.Fprintf(&b, "  - %s\n", id)
		}
		for _, c := range s.Changed {
			fmt.Fprintf(&b, "  ~ %s\n", c.ID)
			for _, line := range strings.Split(strings.TrimRight(clipDiff(c.Diff), "\n"), "\n") {
				fmt.Fprintf(&b, "      %s\n", line)
			}
		}
	}
	if len(d.Unchanged) > 0 {
		fmt.Fprintf(&b, "\nunchanged: %s\n", strings.Join(d.Unchanged, ", "))
	}
	return b.String()
}

// maxMarkdown bounds Markdown's output below the 65,536 characters a GitHub comment may hold.
const maxMarkdown = 60000

// Markdown is the diff for a pull request comment: a summary, a table of the sites, then per site a table of
// its added, removed and changed objects, with each changed object's diff folded in a <details> block. When
// that would exceed maxMarkdown, the per-object diffs are left out (and a note says so) and the tables stay.
func (d SitesDiff) Markdown() string {
	if md := d.markdown(true); len(md) <= maxMarkdown {
		return md
	}
	return d.markdown(false) + "\n_The object diffs are left out: they would not fit in one comment. " +
		"`siteops diff --base " + d.Base + " --head " + d.Head + "` prints them._\n"
}

func (d SitesDiff) markdown(withDiffs bool) string {
	var b strings.Builder
	fmt.Fprintf(&b, "### siteops: rendered changes `%s` → `%s`\n\n", d.Base, d.Head)
	fmt.Fprintf(&b, "**%s**", d.summary())
	if len(d.Unchanged) > 0 {
		fmt.Fprintf(&b, " · unchanged: %s", strings.Join(d.Unchanged, ", "))
	}
	b.WriteString("\n")
	if len(d.Sites) == 0 {
		return b.String()
	}
	b.WriteString("\n| site | change |\n|---|---|\n")
	for _, s := range d.Sites {
		fmt.Fprintf(&b, "| `%s` | %s |\n", s.Site, mdCell(s.counts()))
	}
	for _, s := range d.Sites {
		fmt.Fprintf(&b, "\n#### `%s`\n\n", s.Site)
		if s.Failed != "" {
			fmt.Fprintf(&b, "Failed to render %s\n", mdCell(s.Failed))
			continue
		}
		if len(s.Added)+len(s.Removed)+len(s.Changed) == 0 {
			b.WriteString("No objects.\n")
			continue
		}
		b.WriteString("| | kind | namespace | name | apiVersion |\n|---|---|---|---|---|\n")
		row := func(mark string, id ObjectID) {
			fmt.Fprintf(&b, "| %s | %s | %s | %s | %s |\n", mark, mdCell(id.Kind), mdCell(id.Namespace),
				mdCell(id.Name), mdCell(id.APIVersion))
		}
		for _, id := range s.Added {
			row("added", id)
		}
		for _, id := range s.Removed {
			row("removed", id)
		}
		for _, c := range s.Changed {
			row("changed", c.ID)
		}
		for _, c := range s.Changed {
			if !withDiffs {
				break
			}
			diff := clipDiff(c.Diff)
			fence := "```"
			for strings.Contains(diff, fence) {
				fence += "`"
			}
			fmt.Fprintf(&b, "\n<details><summary>%s</summary>\n\n%sdiff\n%s%s\n\n</details>\n",
				mdHTML(c.ID.String()), fence, diff, fence)
		}
	}
	return b.String()
}

// Clipped is the object's diff cut to its first lines, as Text and Markdown print it.
func (c ObjectChange) Clipped() string { return clipDiff(c.Diff) }

// clipDiff keeps the first maxDiffLines lines of a diff and says how many were left out.
func clipDiff(diff string) string {
	lines := strings.SplitAfter(diff, "\n")
	if n := len(lines); n > maxDiffLines+1 {
		return strings.Join(lines[:maxDiffLines], "") + fmt.Sprintf("... %d more lines\n", n-maxDiffLines-1)
	}
	return diff
}

// mdCell escapes text for a Markdown table cell.
func mdCell(s string) string {
	return strings.NewReplacer("|", `\|`, "\n", " ", "<", "&lt;", ">", "&gt;").Replace(s)
}

// mdHTML escapes text inside an HTML element of a Markdown document.
func mdHTML(s string) string {
	return strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;").Replace(s)
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
