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

package gitops

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"path"
	"slices"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-logr/logr"
)

// Sync fetches the source, renders the sites whose inputs changed and publishes them on the target branch.
// A failed site is not an error (see SyncResult.Sites); Sync fails only when the source or target cannot be
// fetched, the options are invalid (permanent), or the push fails after retries.
func Sync(ctx context.Context, opts SyncOptions) (SyncResult, error) {
	o, err := withDefaults(opts)
	if err != nil {
		return SyncResult{}, err
	}
	src, err := fetchSource(ctx, o.WorkDir, o.Source)
	if err != nil {
		return SyncResult{}, err
	}
	defer src.release()
	res := SyncResult{SourceRevision: src.commit.Hash.String()}
	if src.ref.IsBranch() && sameURL(o.Target.URL, o.Source.URL) && src.ref.Short() == o.Target.Branch {
		return res, permanent(fmt.Errorf("target branch %q is the source branch", o.Target.Branch))
	}
	tree := src.cache.gitTree(src.tree)
	plan, err := planSites(tree, o, memoGuard(src.cache.dir, tree))
	if err != nil {
		return res, err
	}
	tgtAuth, err := authMethod(o.Target.URL, o.Target.Auth, o.WorkDir)
	if err != nil {
		return res, err
	}
	tgtCA, err := caBundle(o.Target.Auth)
	if err != nil {
		return res, err
	}
	tgt, err := openCache(o.WorkDir, "tgt", o.Target.URL, tgtAuth, tgtCA)
	if err != nil {
		return res, err
	}
	defer tgt.release()
	st, err := fetchTarget(ctx, tgt, src, o)
	if err != nil {
		return res, o.redact(fmt.Errorf("fetching target branch %q: %w", o.Target.Branch, err))
	}
	jobs := plan.decide(st, o.Previous)
	results, err := renderToStore(ctx, tgt.repo.Storer, jobs, o.Workers)
	if err != nil {
		return res, err
	}
	files, siteOf := map[string]plumbing.Hash{}, map[string]string{}
	for i, j := range jobs {
		s := plan.states[j.name]
		s.Rendered, s.RenderDuration = true, results[i].took
		if results[i].err != nil {
			s.Ready, s.Reason, s.Message = false, failureReason(results[i].err), o.redactMsg(results[i].err.Error())
			o.Logger.V(1).Info("site failed", "site", j.name, "error", s.Message)
			continue
		}
		files[plan.paths[j.name]], siteOf[plan.paths[j.name]] = results[i].blob, j.name
		s.Ready = true
	}
	var g gated
	if o.Gate != nil {
		if g, err = applyGate(tgt, st, o.Gate, o, res.SourceRevision, plan, files, siteOf); err != nil {
			return res, err
		}
	}
	author, _ := parseAuthor(o.CommitAuthor) // validated by withDefaults
	removed := removedSites(tree, o, plan)
	pr, err := publish(ctx, tgt, st, publishInput{
		branch: o.Target.Branch, author: author, sourceRev: res.SourceRevision,
		files: files, siteOf: siteOf, removed: removed, signer: o.Target.SigningKey, beforePush: o.beforePush,
		log: o.Logger, restored: g.restored, trailers: g.trailers,
	})
	res.ForeignCommits, res.PushRetries = pr.foreign, pr.retries
	if err != nil {
		for _, s := range plan.states {
			if s.Rendered && s.Ready {
				s.Ready, s.Reason, s.Message = false, FailureNotPublished, "rendered but not published: the push failed"
			}
		}
		// The removed sites stay in the result, as they were, so the next Sync removes them again.
		for _, name := range removed {
			prev := o.Previous[name]
			plan.states[name] = &prev
		}
		res.Sites = plan.sorted()
		return res, o.redact(err)
	}
	for _, dir := range slices.Sorted(maps.Keys(siteOf)) {
		plan.states[siteOf[dir]].LastRenderedRevision = res.SourceRevision
	}
	for name, rev := range g.restored {
		plan.states[name].LastRenderedRevision = rev
	}
	if pr.pushed {
		for _, name := range pr.changed { // removed sites are not in plan.states
			if s, ok := plan.states[name]; ok {
				s.RenderedCommit = pr.head.String()
			}
		}
	}
	if err := findLastChanges(tgt, pr.head, plan); err != nil {
		// Only the status's per-site rendered commit is missing: the sync itself succeeded.
		o.Logger.Error(o.redact(err), "finding the commits that last changed the sites' folders")
	}
	res.RenderedRevision, res.Pushed, res.Sites = hashString(pr.head), pr.pushed, plan.sorted()
	o.Logger.V(1).Info("sync done", "source", res.SourceRevision, "rendered", res.RenderedRevision,
		"pushed", res.Pushed, "changedSites", pr.changed)
	return res, nil
}

// fetchTarget fetches the target branch. When the target is the source's repository, the refs listed to
// fetch the source serve again: no second listing.
func fetchTarget(ctx context.Context, tgt *gitCache, src *source, o SyncOptions) (targetState, error) {
	if src.refs.listed && sameURL(o.Target.URL, o.Source.URL) {
		return tgt.fetchListedBranch(ctx, src.refs, o.Target.Branch)
	}
	return tgt.fetchBranch(ctx, o.Target.Branch)
}

// withDefaults fills the defaults of opts and validates them; errors are permanent.
func withDefaults(o SyncOptions) (SyncOptions, error) {
	if o.Target.URL == "" {
		o.Target.URL = o.Source.URL
		if o.Target.Auth == nil {
			o.Target.Auth = o.Source.Auth
		}
	}
	if o.Target.Branch == "" {
		o.Target.Branch = DefaultTargetBranch
	}
	if o.Target.PathTemplate == "" {
		o.Target.PathTemplate = DefaultPathTemplate
	}
	if o.OverlaysDir == "" {
		o.OverlaysDir = DefaultOverlaysDir
	}
	if o.Workers <= 0 {
		o.Workers = DefaultWorkers
	}
	if o.Logger.GetSink() == nil {
		o.Logger = logr.Discard()
	}
	if o.WorkDir == "" {
		return o, permanent(errors.New("WorkDir is required"))
	}
	if err := ValidateURL(o.Source.URL); err != nil {
		return o, err
	}
	if err := ValidateURL(o.Target.URL); err != nil {
		return o, err
	}
	if !plumbing.NewBranchReferenceName(o.Target.Branch).IsBranch() || o.Target.Branch != path.Clean(o.Target.Branch) {
		return o, permanent(fmt.Errorf("invalid target branch %q", o.Target.Branch))
	}
	if _, err := parseAuthor(o.CommitAuthor); err != nil {
		return o, err
	}
	return o, nil
}

func (o SyncOptions) redactMsg(s string) string { return redact(s, o.Source.Auth, o.Target.Auth) }
func (o SyncOptions) redact(err error) error    { return redactErr(err, o.Source.Auth, o.Target.Auth) }

// sitePlan is the per-site state of a Sync before publishing.
type sitePlan struct {
	states map[string]*SiteState
	inputs map[string]*siteInputs
	dirs   map[string]string // site → overlay folder
	paths  map[string]string // site → target folder (valid sites only)
}

// planSites selects the sites and guards each one with guard (guardSite with contents, or memoGuard); a site
// that fails the guard is failed, not an error.
func planSites(t fileTree, o SyncOptions, guard func(dir string) (*siteInputs, error)) (*sitePlan, error) {
	names := o.Sites
	if len(names) == 0 {
		found, err := discoverSites(t, o.OverlaysDir)
		if err != nil {
			return nil, err
		}
		names = found
	}
	p := &sitePlan{states: map[string]*SiteState{}, inputs: map[string]*siteInputs{}, dirs: map[string]string{}}
	var valid []string
	for _, name := range names {
		s := &SiteState{Name: name}
		if prev, ok := o.Previous[name]; ok {
			s.LastRenderedRevision, s.RenderedCommit = prev.LastRenderedRevision, prev.RenderedCommit
		}
		p.states[name] = s
		if err := ValidateSiteName(name); err != nil {
			s.Reason, s.Message = FailureInvalidName, err.Error()
			continue
		}
		valid = append(valid, name)
		p.dirs[name] = path.Join(cleanRel(o.OverlaysDir), name)
		in, err := guard(p.dirs[name])
		if err != nil {
			var g *guardError
			if !errors.As(err, &g) {
				return nil, fmt.Errorf("reading site %s: %w", name, err)
			}
			s.Reason, s.Message = FailureGuardRefused, o.redactMsg(err.Error())
			if in != nil {
				s.Warnings = sortedWarnings(in.warnings)
			}
			continue
		}
		p.inputs[name] = in
		s.InputDigest, s.Warnings = in.digest, sortedWarnings(in.warnings)
	}
	paths, err := sitePaths(o.Target.PathTemplate, valid)
	if err != nil {
		return nil, err
	}
	p.paths = paths
	return p, nil
}

// decide returns the sites to render: guarded OK and not (same digest as a Ready previous render whose output
// is still on the target branch). Skipped sites are Ready.
func (p *sitePlan) decide(st targetState, previous map[string]SiteState) []renderJob {
	var jobs []renderJob
	for _, name := range slices.Sorted(maps.Keys(p.inputs)) {
		in, s := p.inputs[name], p.states[name]
		prev, ok := previous[name]
		if ok && prev.Ready && prev.InputDigest == in.digest && st.files != nil {
			if mode, _, err := st.files.entry(p.paths[name] + "/" + ManifestFile); err == nil && mode.IsFile() {
				s.Ready = true
				continue
			}
		}
		jobs = append(jobs, renderJob{name: name, dir: p.dirs[name], in: in})
	}
	return jobs
}

func (p *sitePlan) sorted() []SiteState {
	out := make([]SiteState, 0, len(p.states))
	for _, name := range slices.Sorted(maps.Keys(p.states)) {
		out = append(out, *p.states[name])
	}
	return out
}

func hashString(h plumbing.Hash) string {
	if h.IsZero() {
		return ""
	}
	return h.String()
}

// sameURL compares Git URLs loosely (a trailing slash or .git does not matter).
func sameURL(a, b string) bool {
	norm := func(s string) string {
		for _, suf := range []string{"/", ".git"} {
			if len(s) > len(suf) && s[len(s)-len(suf):] == suf {
				s = s[:len(s)-len(suf)]
			}
		}
		return s
	}
	return norm(a) == norm(b)
}
