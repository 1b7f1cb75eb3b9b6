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

package dashboard

import (
	"context"
	"errors"
	"strings"
	"time"

	gitopsv1alpha1 "github.com/siteops/siteops/apis/gitops/v1alpha1"
	"github.com/siteops/siteops/gitops"
	"github.com/siteops/siteops/gitops/sitediff"
)

// Bounds of the Site view's history: how many rendered commits it shows, and how long one read of the
// rendered branch may take.
const (
	historyCommits = 20
	historyTimeout = time.Minute
)

// errNoGit is the Site and Ledger views' note when the dashboard was started without a clone cache folder.
var errNoGit = errors.New("the dashboard was started without a folder to fetch the rendered branch into")

// siteHistory is what the rendered branch holds of one site, as the Site view shows it, before the status'
// delivery times are added.
type siteHistory struct {
	Branch, Path string
	Commits      []historyCommit
	More         bool
}

// historyCommit is one rendered commit of a site: its trailers, the diff of the site's manifest against the
// commit before it that changed the folder, and what the status knows of its delivery.
type historyCommit struct {
	Commit, Previous string
	At               time.Time
	Subject          string
	Source           string
	Trailers         []gitops.Trailer
	Diff             siteChange
	Delivery         []mark
}

// siteChange is the diff of a site's manifest between two rendered commits.
type siteChange struct {
	// Note says why there is no diff, or what else changed (the folder appeared or went away).
	Note    string
	Added   []string
	Removed []string
	Changed []objectDiff
}

// objectDiff is one changed object with its unified diff's lines, cut as `siteops diff` cuts them.
type objectDiff struct {
	Object string
	Lines  []diffLine
}

// diffLine is one line of a unified diff and its kind: add, del, hunk, head or ctx.
type diffLine struct{ Kind, Text string }

// siteHistory reads the site's last historyCommits rendered commits from ss's rendered branch, each with the
// diff against the site's previous rendered commit. What it read, or why it could not, is kept (see
// historyMemo).
func (s *Server) siteHistory(ctx context.Context, ss *gitopsv1alpha1.SiteSync, site string) (siteHistory, error) {
	src := s.opts.Rendered
	if src.WorkDir == "" {
		return siteHistory{}, errNoGit
	}
	opts := src.Options(ss)
	key := strings.Join([]string{ss.Namespace, ss.Name, site, ss.Status.RenderedRevision, opts.Target.URL,
		opts.Target.Branch, opts.Target.PathTemplate}, "\x00")
	if e, ok := s.hist.get(key, s.opts.Clock.Now()); ok {
		return e.history, e.err
	}
	ctx, cancel := context.WithTimeout(ctx, historyTimeout)
	defer cancel()
	gh, err := s.opts.Syncer.ReadSiteHistory(ctx, opts, ss.Status.RenderedRevision, site, historyCommits)
	if err != nil {
		s.hist.put(key, memoEntry{err: err, at: s.opts.Clock.Now()})
		return siteHistory{}, err
	}
	h := siteHistory{Branch: opts.Target.Branch, Path: gh.Path, More: gh.More}
	if h.Branch == "" {
		h.Branch = gitops.DefaultTargetBranch
	}
	for _, c := range gh.Commits {
		h.Commits = append(h.Commits, historyCommit{Commit: c.Commit, Previous: c.Previous, At: c.At,
			Subject: c.Subject, Source: c.SourceRevision, Trailers: c.Trailers, Diff: manifestChange(site, c)})
	}
	s.hist.put(key, memoEntry{history: h, at: s.opts.Clock.Now()})
	return h, nil
}

// manifestChange is the diff of the site's manifest at c against its previous rendered commit, object by
// object as `siteops diff` compares them.
func manifestChange(site string, c gitops.SiteCommit) siteChange {
	switch {
	case c.Manifest.TooLarge || c.PreviousManifest.TooLarge:
		return siteChange{Note: "the manifest is too large to compare here; use git diff " + short(c.Previous) +
			" " + short(c.Commit)}
	case c.Previous == "" && len(c.Manifest.YAML) == 0:
		return siteChange{Note: "no manifest in the folder"}
	}
	base := map[string]sitediff.SiteOutput{}
	if c.Previous != "" && len(c.PreviousManifest.YAML) > 0 {
		base[site] = sitediff.SiteOutput{YAML: c.PreviousManifest.YAML}
	}
	head := map[string]sitediff.SiteOutput{}
	if len(c.Manifest.YAML) > 0 {
		head[site] = sitediff.SiteOutput{YAML: c.Manifest.YAML}
	}
	d, err := sitediff.DiffSites(short(c.Previous), short(c.Commit), base, head)
	if err != nil {
		return siteChange{Note: "not compared: " + err.Error()}
	}
	var out siteChange
	switch {
	case c.Previous == "":
		out.Note = "the first rendered commit of the site read: every object is new"
	case len(d.Sites) == 0:
		out.Note = "the manifest did not change (another file of the folder did)"
	case d.Sites[0].Gone:
		out.Note = "the site's manifest was removed"
	}
	for _, sd := range d.Sites {
		for _, id := range sd.Added {
			out.Added = append(out.Added, id.String())
		}
		for _, id := range sd.Removed {
			out.Removed = append(out.Removed, id.String())
		}
		for _, ch := range sd.Changed {
			out.Changed = append(out.Changed, objectDiff{Object: ch.ID.String(), Lines: diffLines(ch.Clipped())})
		}
	}
	return out
}

// diffLines splits a unified diff into its lines by kind.
func diffLines(diff string) []diffLine {
	var out []diffLine
	for i, line := range strings.Split(strings.TrimRight(diff, "\n"), "\n") {
		kind := "ctx"
		switch {
		case i < 2 && (strings.HasPrefix(line, "--- ") || strings.HasPrefix(line, "+++ ")):
			kind = "head"
		case strings.HasPrefix(line, "@@"):
			kind = "hunk"
		case strings.HasPrefix(line, "+"):
			kind = "add"
		case strings.HasPrefix(line, "-"):
			kind = "del"
		}
		out = append(out, diffLine{Kind: kind, Text: line})
	}
	return out
}

// notReadable is the page's note for a rendered branch that could not be read (the error's text carries no
// credentials: gitops redacts them).
func notReadable(err error) string {
	if errors.Is(err, errNoGit) {
		return "The rendered branch is not read: " + err.Error() + "."
	}
	return "The rendered branch is not readable from here: " + err.Error() + ". The dashboard fetches it with " +
		"the credentials of SITEOPS_GIT_USERNAME and SITEOPS_GIT_PASSWORD (or SITEOPS_SSH_KEY_FILE), from " +
		"--target-url when the SiteSync's target URL is not reachable from this machine."
}
