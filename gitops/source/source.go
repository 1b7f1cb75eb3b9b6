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

package source

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"strings"

	git "github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/config"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/go-git/go-git/v5/plumbing/transport"

	"github.com/siteops/siteops/gitops/internal/permanent"
)

var fullSHA = regexp.MustCompile(`^[0-9a-f]{40}$`)

// Fetched is a fetched source commit, in its locked cache.
type Fetched struct {
	Cache  *Cache
	Commit *object.Commit
	Tree   *object.Tree
	Ref    plumbing.ReferenceName // the branch or tag fetched; "" for a SHA
	Refs   Refs                   // the source's refs as listed for the fetch (not listed for a SHA)
}

// Release unlocks the fetch's cache.
func (s *Fetched) Release() { s.Cache.Release() }

// Fetch fetches spec into workDir and returns the commit it names. A branch or tag is fetched shallow
// (depth 1) and then incrementally; a full SHA uses a full clone. A failed incremental fetch (e.g. after a
// force-push the shallow history cannot follow) starts again from an empty cache.
func (cs *Caches) Fetch(ctx context.Context, workDir string, spec Spec) (*Fetched, error) {
	if err := ValidateURL(spec.URL); err != nil {
		return nil, err
	}
	auth, err := AuthMethod(spec.URL, spec.Auth, workDir)
	if err != nil {
		return nil, err
	}
	ca, err := CABundle(spec.Auth)
	if err != nil {
		return nil, err
	}
	kind := "src"
	if fullSHA.MatchString(spec.Ref) {
		kind = "src-full"
	}
	cache, err := cs.Open(workDir, kind, spec.URL, auth, ca)
	if err != nil {
		return nil, err
	}
	commit, ref, refs, err := cache.fetchRef(ctx, spec.Ref)
	if err != nil && !permanent.Is(err) && ctx.Err() == nil {
		if rerr := cache.reset(); rerr == nil {
			commit, ref, refs, err = cache.fetchRef(ctx, spec.Ref)
		}
	}
	if err != nil {
		cache.Release()
		return nil, redactErr(fmt.Errorf("fetching %s: %w", redact(spec.URL), err), spec.Auth)
	}
	if spec.Verify != nil {
		if err := spec.Verify.verifyCommit(commit); err != nil {
			cache.Release()
			return nil, err
		}
	}
	tree, err := commit.Tree()
	if err != nil {
		cache.Release()
		return nil, fmt.Errorf("reading the tree of %s: %w", commit.Hash, err)
	}
	return &Fetched{Cache: cache, Commit: commit, Tree: tree, Ref: ref, Refs: refs}, nil
}

// fetchRef brings ref into the cache and returns its commit, the remote ref it came from and the remote's
// refs as listed (not listed for a SHA): one request to list, and one to fetch when ref moved.
func (c *Cache) fetchRef(ctx context.Context, ref string) (*object.Commit, plumbing.ReferenceName, Refs,
	error) {
	if fullSHA.MatchString(ref) {
		commit, err := c.fetchSHA(ctx, plumbing.NewHash(ref))
		return commit, "", Refs{}, err
	}
	refs, err := c.listRemote(ctx)
	if err != nil {
		return nil, "", refs, err
	}
	remoteName, err := pickRef(refs, ref)
	if err != nil {
		return nil, "", refs, err
	}
	local := plumbing.ReferenceName("refs/remotes/origin/" + strings.TrimPrefix(remoteName.String(), "refs/heads/"))
	if remoteName.IsTag() {
		local = remoteName
	}
	want := refs.hashes[remoteName]
	if err := c.fetchRefAt(ctx, refs, want, local, 1); err != nil {
		return nil, "", refs, err
	}
	commit, err := c.peelCommit(want)
	return commit, remoteName, refs, err
}

// fetchSHA makes sure commit h is in the (full) cache, fetching every branch and tag when it is not.
func (c *Cache) fetchSHA(ctx context.Context, h plumbing.Hash) (*object.Commit, error) {
	if commit, err := c.repo.CommitObject(h); err == nil {
		return commit, nil
	}
	err := c.repo.FetchContext(ctx, &git.FetchOptions{
		RemoteName: git.DefaultRemoteName,
		RefSpecs: []config.RefSpec{
			"+refs/heads/*:refs/remotes/origin/*", "+refs/tags/*:refs/tags/*",
		},
		Auth:     c.auth,
		CABundle: c.ca,
		Tags:     git.NoTags,
		Force:    true,
	})
	if err != nil && !errors.Is(err, git.NoErrAlreadyUpToDate) {
		return nil, classifyTransport(err)
	}
	commit, err := c.repo.CommitObject(h)
	if err != nil {
		return nil, permanent.Error(fmt.Errorf("commit %s not found on any branch or tag of the source", h))
	}
	return commit, nil
}

// pickRef finds the remote ref a Spec.Ref names: "" is the default branch, then a branch, a tag, or a
// full ref name. Not found is permanent.
func pickRef(refs Refs, ref string) (plumbing.ReferenceName, error) {
	if ref == "" {
		if _, ok := refs.hashes[refs.head]; ok {
			return refs.head, nil
		}
		for _, b := range []string{"main", "master"} {
			if _, ok := refs.hashes[plumbing.NewBranchReferenceName(b)]; ok {
				return plumbing.NewBranchReferenceName(b), nil
			}
		}
		return "", permanent.Error(fmt.Errorf("the source has no default branch"))
	}
	for _, name := range []plumbing.ReferenceName{
		plumbing.NewBranchReferenceName(ref), plumbing.NewTagReferenceName(ref), plumbing.ReferenceName(ref),
	} {
		if _, ok := refs.hashes[name]; ok && (name.IsBranch() || name.IsTag()) {
			return name, nil
		}
	}
	return "", permanent.Error(fmt.Errorf("ref %q not found in the source (no such branch or tag)", ref))
}

// peelCommit returns the commit h names, following annotated tags.
func (c *Cache) peelCommit(h plumbing.Hash) (*object.Commit, error) {
	for range 10 {
		if commit, err := c.repo.CommitObject(h); err == nil {
			return commit, nil
		}
		tag, err := c.repo.TagObject(h)
		if err != nil {
			return nil, fmt.Errorf("%s is neither a commit nor a tag: %w", h, err)
		}
		h = tag.Target
	}
	return nil, fmt.Errorf("tag chain at %s is too long", h)
}

// classifyTransport marks the transport errors retrying cannot fix as permanent.
func classifyTransport(err error) error {
	if tlsErr := classifyTLS(err); tlsErr != nil {
		return tlsErr
	}
	for _, p := range []error{
		transport.ErrAuthenticationRequired, transport.ErrAuthorizationFailed, transport.ErrRepositoryNotFound,
		transport.ErrInvalidAuthMethod,
	} {
		if errors.Is(err, p) {
			return permanent.Error(err)
		}
	}
	// SSH: a host key that does not match known hosts, or a key the server refuses.
	msg := err.Error()
	for _, s := range []string{"knownhosts: key mismatch", "knownhosts: key is unknown", "unable to authenticate"} {
		if strings.Contains(msg, s) {
			return permanent.Error(err)
		}
	}
	return err
}
