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
	"fmt"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"

	"github.com/siteops/siteops/gitops/guard"
	"github.com/siteops/siteops/gitops/internal/tree"
	"github.com/siteops/siteops/gitops/provenance"
	"github.com/siteops/siteops/gitops/source"
)

// VerifyOptions name a site on a rendered branch and the key its attestation must be signed with.
type VerifyOptions struct {
	WorkDir string // cache folder of the fetched branch
	URL     string
	Branch  string // default "rendered"
	Auth    *Auth
	// Commit is the rendered commit to check (a SHA, short or full); "" is the branch's head.
	Commit string
	Site   string
	Key    *provenance.PublicKey
}

// VerifyResult is a site whose folder in Commit is the output its signed statement names.
type VerifyResult struct {
	Commit string
	provenance.Verified
}

// VerifySite fetches the rendered branch and verifies the site's attestation in the commit (provenance.Verify):
// its signature, and that the site's folder holds exactly the files it attests. The error wraps
// provenance.ErrNoAttestation, ErrBadSignature or ErrOutputChanged when the check fails.
func (sy *Syncer) VerifySite(ctx context.Context, o VerifyOptions) (VerifyResult, error) {
	branch := orDefault(o.Branch, DefaultTargetBranch)
	if err := guard.ValidateSiteName(o.Site); err != nil {
		return VerifyResult{}, err
	}
	if err := source.ValidateURL(o.URL); err != nil {
		return VerifyResult{}, err
	}
	method, err := source.AuthMethod(o.URL, o.Auth, o.WorkDir)
	if err != nil {
		return VerifyResult{}, err
	}
	ca, err := source.CABundle(o.Auth)
	if err != nil {
		return VerifyResult{}, err
	}
	c, err := sy.caches.Open(o.WorkDir, "tgt", o.URL, method, ca)
	if err != nil {
		return VerifyResult{}, err
	}
	defer c.Release()
	b, err := c.FetchBranch(ctx, branch)
	if err != nil {
		return VerifyResult{}, source.NewRedactor(o.Auth).Error(fmt.Errorf("fetching branch %q: %w", branch, err))
	}
	if b.Tree == nil {
		return VerifyResult{}, fmt.Errorf("branch %q does not exist", branch)
	}
	commit, t := b.Head, b.Tree
	if o.Commit != "" {
		if commit, t, err = commitTree(c, o.Commit, branch); err != nil {
			return VerifyResult{}, err
		}
	}
	v, err := provenance.Verify(ctx, tree.NewGit(c.Repo().Storer, t), o.Site, o.Key)
	if err != nil {
		return VerifyResult{}, fmt.Errorf("site %s in rendered commit %s: %w", o.Site, commit.String()[:12], err)
	}
	return VerifyResult{Commit: commit.String(), Verified: v}, nil
}

// commitTree resolves rev in the cache of branch to a commit and its tree.
func commitTree(c *source.Cache, rev, branch string) (plumbing.Hash, *object.Tree, error) {
	h, err := c.Repo().ResolveRevision(plumbing.Revision(rev))
	if err != nil {
		return plumbing.ZeroHash, nil, fmt.Errorf("commit %q is not in branch %q's history: %w", rev, branch, err)
	}
	co, err := c.Repo().CommitObject(*h)
	if err != nil {
		return plumbing.ZeroHash, nil, fmt.Errorf("%s is not a commit: %w", rev, err)
	}
	t, err := co.Tree()
	if err != nil {
		return plumbing.ZeroHash, nil, fmt.Errorf("reading the tree of %s: %w", co.Hash, err)
	}
	return co.Hash, t, nil
}
