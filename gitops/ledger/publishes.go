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

// Package ledger computes the delivery ledger of a SiteSync, the four DORA metrics: lead time for changes,
// deployment frequency, change failure rate and time to restore. It reads what Git keeps (the rendered
// branch's commits and their trailers: which source revision, which sites, which revert) and takes from the
// caller what only the SiteSync's status keeps (when a revision was delivered, halted and restored), so the
// ledger is rebuilt the same way after a restart. See docs/ledger.md for the definitions.
package ledger

import (
	"fmt"
	"slices"
	"strings"
	"time"

	git "github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"

	"github.com/siteops/siteops/gitops/publish"
)

// maxWalk bounds how many commits of the rendered branch one read walks, whatever the window.
const maxWalk = 10000

// Publish is one rendered commit siteops made: the source revision it publishes and the sites it changes.
type Publish struct {
	Commit         string    `json:"commit"`
	At             time.Time `json:"at"` // the committer time
	SourceRevision string    `json:"sourceRevision"`
	// Sites are the sites whose folders the commit changes (trailer Siteops-Sites), sorted by name.
	Sites []string `json:"sites"`
	// Restored are the sites of Sites given their last healthy output back (a revert), sorted by name.
	Restored []string `json:"restored,omitempty"`
	// RevertOf is the rendered commit a revert replaces (trailer Siteops-Revert-Of).
	RevertOf string `json:"revertOf,omitempty"`
	// FreezeOverride is the reason the commit went out during a freeze window (Siteops-Freeze-Override).
	FreezeOverride string `json:"freezeOverride,omitempty"`
}

// Deployed are the sites the commit gives the source revision's output: Sites less Restored.
func (p Publish) Deployed() []string {
	var out []string
	for _, s := range p.Sites {
		if !slices.Contains(p.Restored, s) {
			out = append(out, s)
		}
	}
	return out
}

// ReadPublishes reads, newest first, the siteops commits on the first-parent line of head whose committer
// time is not before since; commits siteops did not make are skipped. The walk ends at the first older
// commit, so it costs the window, not the branch.
func ReadPublishes(repo *git.Repository, head plumbing.Hash, since time.Time) ([]Publish, error) {
	return readUntil(repo, head, plumbing.ZeroHash, since)
}

// readUntil is ReadPublishes that also stops at stop (not included).
func readUntil(repo *git.Repository, head, stop plumbing.Hash, since time.Time) ([]Publish, error) {
	var out []Publish
	for h, n := head, 0; !h.IsZero() && h != stop && n < maxWalk; n++ {
		c, err := repo.CommitObject(h)
		if err != nil {
			return nil, fmt.Errorf("reading rendered commit %s: %w", h, err)
		}
		if c.Committer.When.Before(since) {
			break
		}
		if p, ok := parsePublish(c); ok {
			out = append(out, p)
		}
		if len(c.ParentHashes) == 0 {
			break
		}
		h = c.ParentHashes[0]
	}
	return out, nil
}

// parsePublish reads a rendered commit's trailers; ok is false for a commit siteops did not make.
func parsePublish(c *object.Commit) (Publish, bool) {
	t := trailers(c.Message)
	rev := t[publish.TrailerSourceRevision]
	if len(rev) != 40 {
		return Publish{}, false
	}
	p := Publish{Commit: c.Hash.String(), At: c.Committer.When, SourceRevision: rev,
		RevertOf: t[publish.TrailerRevertOf], FreezeOverride: t[publish.TrailerFreezeOverride]}
	if s := t[publish.TrailerSites]; s != "" {
		p.Sites = strings.Split(s, ",")
	}
	p.Restored = publish.RestoredSites(c.Message)
	return p, true
}

// trailers are the commit message's trailers by key (the last of a repeated key).
func trailers(msg string) map[string]string {
	out := map[string]string{}
	for _, t := range publish.ParseTrailers(msg) {
		out[t.Key] = t.Value
	}
	return out
}
