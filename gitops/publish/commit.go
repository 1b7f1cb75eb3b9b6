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

package publish

import (
	"fmt"
	"regexp"
	"sort"
	"strings"

	git "github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"

	"github.com/siteops/siteops/gitops/internal/permanent"
	"github.com/siteops/siteops/internal/version"
)

// maxForeignCommits bounds the foreign commits reported.
const maxForeignCommits = 50

// commitMessage is the rendered commit's message with its trailers: the subject names the rendered and the
// removed sites, the Sites trailer lists both.
func commitMessage(sourceRev string, rendered, removed []string) string {
	short := sourceRev
	if len(short) > 12 {
		short = short[:12]
	}
	var what []string
	if len(rendered) > 0 {
		what = append(what, "render "+strings.Join(rendered, ", "))
	}
	if len(removed) > 0 {
		what = append(what, "remove "+strings.Join(removed, ", ")+" (overlay deleted)")
	}
	sites := append(append([]string(nil), rendered...), removed...)
	sort.Strings(sites)
	return fmt.Sprintf("siteops: %s from %s\n\n%s: %s\n%s: %s\n%s: %s\n",
		strings.Join(what, "; "), short,
		TrailerSourceRevision, sourceRev, TrailerSites, strings.Join(sites, ","), TrailerVersion, version.Version)
}

var sourceTrailer = regexp.MustCompile(`(?m)^` + TrailerSourceRevision + `:\s*[0-9a-f]{40}\s*$`)

// isSiteopsCommit reports whether a commit was made by siteops (it carries the source-revision trailer).
func isSiteopsCommit(c *object.Commit) bool { return sourceTrailer.MatchString(c.Message) }

// ForeignCommits lists, newest first, the commits on the first-parent line from head back to the last siteops
// commit that siteops did not make.
func ForeignCommits(repo *git.Repository, head plumbing.Hash) ([]string, error) {
	var out []string
	for h := head; !h.IsZero() && len(out) < maxForeignCommits; {
		c, err := repo.CommitObject(h)
		if err != nil {
			return nil, fmt.Errorf("reading target commit %s: %w", h, err)
		}
		if isSiteopsCommit(c) {
			break
		}
		out = append(out, c.Hash.String())
		if len(c.ParentHashes) == 0 {
			break
		}
		h = c.ParentHashes[0]
	}
	return out, nil
}

// authorRE matches "Name <email>".
var authorRE = regexp.MustCompile(`^\s*(.*?)\s*<([^<>]*)>\s*$`)

// DefaultCommitAuthor is the author of rendered commits when none is given.
const DefaultCommitAuthor = "siteops <siteops@localhost>"

// ParseAuthor parses "Name <email>" ("" is DefaultCommitAuthor); errors are permanent.
func ParseAuthor(s string) (object.Signature, error) {
	if s == "" {
		s = DefaultCommitAuthor
	}
	m := authorRE.FindStringSubmatch(s)
	if m == nil || m[1] == "" {
		return object.Signature{}, permanent.Error(fmt.Errorf("commit author %q: want \"Name <email>\"", s))
	}
	return object.Signature{Name: m[1], Email: m[2]}, nil
}
