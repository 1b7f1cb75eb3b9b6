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
	"math/rand/v2"
	"slices"
	"sort"
	"strings"
	"time"

	git "github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/go-logr/logr"

	"github.com/siteops/siteops/gitops/internal/tree"
)

const (
	// maxPushAttempts bounds fetch-rebuild-push rounds when the target branch moves under us.
	maxPushAttempts = 5
	// maxForeignCommits bounds the foreign commits reported.
	maxForeignCommits = 50
	pushBackoffBase   = 200 * time.Millisecond
)

// targetState is the fetched head of the target branch (zero hash and nil tree when it does not exist yet).
type targetState struct {
	head  plumbing.Hash
	tree  *object.Tree
	files *tree.Git // tree's folders, decoded once
}

// fetchBranch lists the remote and fetches the whole history of branch (to find the last siteops commit)
// into the cache.
func (c *gitCache) fetchBranch(ctx context.Context, branch string) (targetState, error) {
	refs, err := c.listRemote(ctx)
	if err != nil {
		return targetState{}, err
	}
	return c.fetchListedBranch(ctx, refs, branch)
}

// fetchListedBranch fetches branch at the commit refs lists for it (a listing of the same repository, e.g.
// the one made for the source), which costs a request only when the cache does not have that commit yet.
func (c *gitCache) fetchListedBranch(ctx context.Context, refs remoteRefs, branch string) (targetState, error) {
	want, ok := refs.hashes[plumbing.NewBranchReferenceName(branch)]
	if !ok {
		return targetState{}, nil
	}
	if err := c.fetchRefAt(ctx, refs, want, remoteTracking(branch), 0); err != nil {
		return targetState{}, err
	}
	commit, err := c.repo.CommitObject(want)
	if err != nil {
		return targetState{}, fmt.Errorf("reading target head %s: %w", want, err)
	}
	tree, err := commit.Tree()
	if err != nil {
		return targetState{}, fmt.Errorf("reading target tree %s: %w", commit.TreeHash, err)
	}
	return targetState{head: commit.Hash, tree: tree, files: c.gitTree(tree)}, nil
}

// remoteTracking is the cache's ref of branch as last fetched or pushed.
func remoteTracking(branch string) plumbing.ReferenceName {
	return plumbing.ReferenceName("refs/remotes/origin/" + branch)
}

// publishInput is what publish writes.
type publishInput struct {
	branch     string
	author     object.Signature
	sourceRev  string
	files      []siteFile        // the manifests.yaml of the sites to publish (blobs in the cache), by folder
	removed    map[string]string // site folder → name, of sites whose overlays are gone (removedSites)
	signer     *SigningKey       // signs the commit when set
	beforePush func(attempt int)
	log        logr.Logger
	restored   map[string]string // site → source revision, of sites whose files are earlier output written back
	trailers   []Trailer         // extra trailers (a gate's revert and freeze override)
}

// publishResult is what publish did.
type publishResult struct {
	head    plumbing.Hash
	pushed  bool
	retries int
	foreign []string
	changed []string // sites whose files changed in the pushed commit
}

// publish writes in.files over the target branch starting from st, commits when the tree changed, and pushes
// without force. When the branch moved meanwhile it re-fetches, re-applies and retries with backoff.
func publish(ctx context.Context, c *gitCache, st targetState, in publishInput) (publishResult, error) {
	var res publishResult
	for attempt := 0; ; attempt++ {
		res.retries = attempt
		foreign, err := foreignCommits(c.repo, st.head)
		if err != nil {
			return res, err
		}
		res.foreign = foreign
		commit, changed, err := buildCommit(c, st, in)
		if err != nil {
			return res, err
		}
		if commit.IsZero() {
			res.head, res.changed = st.head, nil
			return res, nil
		}
		if in.beforePush != nil {
			in.beforePush(attempt)
		}
		err = c.push(ctx, in.branch, st.head, commit)
		if err == nil {
			res.head, res.pushed, res.changed = commit, true, changed
			in.log.Info("pushed rendered commit", "commit", commit.String(), "sites", changed, "retries", attempt)
			return res, nil
		}
		if !isPushConflict(err) || attempt+1 >= maxPushAttempts {
			return res, fmt.Errorf("pushing to %s (attempt %d): %w", in.branch, attempt+1, err)
		}
		in.log.V(1).Info("target branch moved, re-fetching", "attempt", attempt+1)
		if err := sleepCtx(ctx, backoff(attempt)); err != nil {
			return res, err
		}
		if st, err = c.fetchBranch(ctx, in.branch); err != nil {
			return res, err
		}
	}
}

// buildCommit writes the commit of in over st; a zero hash means nothing changed.
func buildCommit(c *gitCache, st targetState, in publishInput) (plumbing.Hash, []string, error) {
	s := c.repo.Storer
	edit := tree.NewEdit(st.files)
	var changed []string
	for _, f := range in.files {
		ok, err := edit.ReplaceDir(s, f.dir, ManifestFile, f.blob)
		if err != nil {
			return plumbing.ZeroHash, nil, err
		}
		if ok {
			changed = append(changed, f.site)
		}
	}
	var removed []string
	for _, dir := range slices.Sorted(maps.Keys(in.removed)) {
		ok, err := edit.RemoveDir(dir)
		if err != nil {
			return plumbing.ZeroHash, nil, err
		}
		if ok {
			removed = append(removed, in.removed[dir])
		}
	}
	if len(changed) == 0 && len(removed) == 0 {
		return plumbing.ZeroHash, nil, nil
	}
	sort.Strings(changed)
	sort.Strings(removed)
	treeHash, _, err := edit.Write(s, "")
	if err != nil {
		return plumbing.ZeroHash, nil, err
	}
	if st.tree != nil && treeHash == st.tree.Hash {
		return plumbing.ZeroHash, nil, nil
	}
	sig := in.author
	sig.When = time.Now()
	commit := &object.Commit{
		Author: sig, Committer: sig, TreeHash: treeHash,
		Message: gatedMessage(in, changed, removed),
	}
	if !st.head.IsZero() {
		commit.ParentHashes = []plumbing.Hash{st.head}
	}
	if in.signer != nil {
		if err := in.signer.sign(commit); err != nil {
			return plumbing.ZeroHash, nil, err
		}
	}
	obj := s.NewEncodedObject()
	if err := commit.Encode(obj); err != nil {
		return plumbing.ZeroHash, nil, fmt.Errorf("encoding commit: %w", err)
	}
	h, err := s.SetEncodedObject(obj)
	if err != nil {
		return plumbing.ZeroHash, nil, fmt.Errorf("storing commit: %w", err)
	}
	return h, append(changed, removed...), nil
}

// isPushConflict reports a push rejected because the branch moved (retry after re-fetching).
func isPushConflict(err error) bool {
	if errors.Is(err, git.ErrNonFastForwardUpdate) {
		return true
	}
	msg := strings.ToLower(err.Error())
	// "missing necessary objects": the commit the push builds on is gone from the remote (a rewritten branch).
	for _, s := range []string{"non-fast-forward", "fetch first", "failed to update ref", "cannot lock ref", "stale info",
		"failed to lock", "missing necessary objects"} {
		if strings.Contains(msg, s) {
			return true
		}
	}
	return false
}

func backoff(attempt int) time.Duration {
	d := pushBackoffBase << attempt
	return d + time.Duration(rand.Int64N(int64(d/2)+1))
}

func sleepCtx(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}
