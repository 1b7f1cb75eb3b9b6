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
	"path"
	"slices"
	"sync"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-logr/logr"

	"github.com/siteops/siteops/gitops/internal/permanent"
	"github.com/siteops/siteops/gitops/internal/tree"
	"github.com/siteops/siteops/gitops/publish"
	"github.com/siteops/siteops/gitops/source"
)

// Sync fetches the source, renders the sites whose inputs changed and publishes them on the target branch.
// A failed site is not an error (see SyncResult.Sites); Sync fails only when the source or target cannot be
// fetched, the options are invalid (permanent), or the push fails after retries.
func (sy *Syncer) Sync(ctx context.Context, opts SyncOptions) (SyncResult, error) {
	o, err := withDefaults(opts)
	if err != nil {
		return SyncResult{}, err
	}
	src, err := sy.caches.Fetch(ctx, o.WorkDir, o.Source)
	if err != nil {
		return SyncResult{}, err
	}
	defer src.Release()
	res := SyncResult{SourceRevision: src.Commit.Hash.String(), SourceTime: src.Commit.Committer.When}
	if src.Ref.IsBranch() && sameURL(o.Target.URL, o.Source.URL) && src.Ref.Short() == o.Target.Branch {
		return res, permanent.Error(fmt.Errorf("target branch %q is the source branch", o.Target.Branch))
	}
	srcTree := src.Cache.Tree(src.Tree)
	plan, err := newSitePlan(srcTree, o)
	if err != nil {
		return res, err
	}
	var tgt *source.Cache
	var st publish.Target
	defer func() {
		if tgt != nil {
			tgt.Release()
		}
	}()
	check, err := newChecker(sy.schemas, srcTree, o.Validation)
	if err != nil {
		return res, err
	}
	policies, err := newPolicyGate(srcTree, o.Policy, sy.policies)
	if err != nil {
		return res, err
	}
	var storeMu sync.Mutex // one writer into the target's store at a time
	att := newAttester(o, res.SourceRevision)
	b := builder{guard: sy.guards.guard(src.Cache.Dir(), srcTree), workers: o.Workers, onRender: sy.onRender,
		check: check, policy: policies, charts: sy.charts, version: o.Validation.kubeVersion}
	err = buildSites(ctx, plan.runs, b, func() error {
		if err := plan.guarded(o); err != nil {
			return err
		}
		if tgt, st, err = sy.openTarget(ctx, src, o); err != nil {
			return err
		}
		if o.PreviousHead != "" && o.PreviousHead != hashString(st.Head) {
			plan.forgetRenderedCommits()
		}
		plan.decide(st, o.Previous, policies.policyDigest(), att != nil)
		return nil
	}, func(r *siteRun, yaml []byte) (err error) {
		if r.renderErr != nil {
			return nil
		}
		var envelope []byte
		if att != nil {
			if envelope, err = att.attest(ctx, r, yaml); err != nil {
				return err
			}
		}
		storeMu.Lock()
		defer storeMu.Unlock()
		if r.blob, err = tree.StoreBlob(tgt.Repo().Storer, yaml); err != nil || envelope == nil {
			return err
		}
		r.attestation, err = tree.StoreBlob(tgt.Repo().Storer, envelope)
		return err
	})
	if err != nil {
		return res, err
	}
	plan.rendered(o)
	var g gated
	if o.Gate != nil {
		if g, err = applyGate(tgt, st, o.Gate, o, res.SourceRevision, plan); err != nil {
			return res, err
		}
	}
	author, _ := publish.ParseAuthor(o.CommitAuthor) // validated by withDefaults
	removed := removedSites(srcTree, o, plan)
	pr, err := pushRendered(ctx, tgt, st, publish.Input{
		Branch: o.Target.Branch, Author: author, SourceRev: res.SourceRevision,
		Files: plan.files(), Removed: removed, Signer: o.Target.SigningKey, BeforePush: o.beforePush,
		Log: o.Logger, Restored: g.restored, Trailers: append(g.trailers, plan.policyTrailers(g.restored)...),
	})
	res.ForeignCommits, res.PushRetries = pr.foreign, pr.retries
	if err != nil {
		for _, r := range plan.runs {
			if s := r.state; s.Rendered && s.Ready {
				s.Ready, s.Reason, s.Message = false, FailureNotPublished, "rendered but not published: the push failed"
			}
		}
		// The removed sites stay in the result, as they were, so the next Sync removes them again.
		res.Sites = plan.sorted(removedStates(removed, o.Previous))
		return res, o.redact(err)
	}
	for _, r := range plan.runs {
		if !r.blob.IsZero() {
			r.state.LastRenderedRevision = res.SourceRevision
		}
	}
	for name, rev := range g.restored {
		plan.byName[name].state.LastRenderedRevision = rev
	}
	if pr.pushed {
		res.ChangedSites = slices.Sorted(slices.Values(pr.changed))
		for _, name := range pr.changed { // removed sites are not in the plan
			if r, ok := plan.byName[name]; ok {
				r.state.RenderedCommit = pr.head.String()
			}
		}
	}
	if err := findLastChanges(tgt, pr.head, plan); err != nil {
		// Only the status's per-site rendered commit is missing: the sync itself succeeded.
		o.Logger.Error(o.redact(err), "finding the commits that last changed the sites' folders")
	}
	res.OCIError = publishOCI(ctx, tgt, plan, o)
	res.RenderedRevision, res.Pushed, res.Sites = hashString(pr.head), pr.pushed, plan.sorted(nil)
	o.Logger.V(1).Info("sync done", "source", res.SourceRevision, "rendered", res.RenderedRevision,
		"pushed", res.Pushed, "changedSites", pr.changed)
	return res, nil
}

// openTarget opens the target's cache and fetches the target branch.
func (sy *Syncer) openTarget(ctx context.Context, src *source.Fetched,
	o SyncOptions) (*source.Cache, publish.Target, error) {
	tgtAuth, err := source.AuthMethod(o.Target.URL, o.Target.Auth, o.WorkDir)
	if err != nil {
		return nil, publish.Target{}, err
	}
	tgtCA, err := source.CABundle(o.Target.Auth)
	if err != nil {
		return nil, publish.Target{}, err
	}
	tgt, err := sy.caches.Open(o.WorkDir, "tgt", o.Target.URL, tgtAuth, tgtCA)
	if err != nil {
		return nil, publish.Target{}, err
	}
	st, err := fetchTarget(ctx, tgt, src, o)
	if err != nil {
		tgt.Release()
		return nil, publish.Target{}, o.redact(fmt.Errorf("fetching target branch %q: %w", o.Target.Branch, err))
	}
	return tgt, st, nil
}

// fetchTarget fetches the target branch. When the target is the source's repository, the refs listed to
// fetch the source serve again: no second listing.
func fetchTarget(ctx context.Context, tgt *source.Cache, src *source.Fetched, o SyncOptions) (publish.Target, error) {
	var b source.Branch
	var err error
	if src.Refs.Listed && sameURL(o.Target.URL, o.Source.URL) {
		b, err = tgt.FetchListedBranch(ctx, src.Refs, o.Target.Branch)
	} else {
		b, err = tgt.FetchBranch(ctx, o.Target.Branch)
	}
	return publish.Target(b), err
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
		return o, permanent.Error(errors.New("WorkDir is required"))
	}
	if err := source.ValidateURL(o.Source.URL); err != nil {
		return o, err
	}
	if err := source.ValidateURL(o.Target.URL); err != nil {
		return o, err
	}
	if !plumbing.NewBranchReferenceName(o.Target.Branch).IsBranch() || o.Target.Branch != path.Clean(o.Target.Branch) {
		return o, permanent.Error(fmt.Errorf("invalid target branch %q", o.Target.Branch))
	}
	if _, err := publish.ParseAuthor(o.CommitAuthor); err != nil {
		return o, err
	}
	return o, nil
}

func (o SyncOptions) redactMsg(s string) string {
	return source.NewRedactor(o.Source.Auth, o.Target.Auth).String(s)
}
func (o SyncOptions) redact(err error) error {
	return source.NewRedactor(o.Source.Auth, o.Target.Auth).Error(err)
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
