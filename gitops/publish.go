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
	"math/rand/v2"
	"strings"
	"time"

	git "github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"

	"github.com/siteops/siteops/gitops/publish"
)

const (
	// maxPushAttempts bounds fetch-rebuild-push rounds when the target branch moves under us.
	maxPushAttempts = 5
	pushBackoffBase = 200 * time.Millisecond
)

// fetchBranch lists the remote and fetches the whole history of branch (to find the last siteops commit)
// into the cache.
func (c *gitCache) fetchBranch(ctx context.Context, branch string) (publish.Target, error) {
	refs, err := c.listRemote(ctx)
	if err != nil {
		return publish.Target{}, err
	}
	return c.fetchListedBranch(ctx, refs, branch)
}

// fetchListedBranch fetches branch at the commit refs lists for it (a listing of the same repository, e.g.
// the one made for the source), which costs a request only when the cache does not have that commit yet.
func (c *gitCache) fetchListedBranch(ctx context.Context, refs remoteRefs, branch string) (publish.Target, error) {
	want, ok := refs.hashes[plumbing.NewBranchReferenceName(branch)]
	if !ok {
		return publish.Target{}, nil
	}
	if err := c.fetchRefAt(ctx, refs, want, remoteTracking(branch), 0); err != nil {
		return publish.Target{}, err
	}
	commit, err := c.repo.CommitObject(want)
	if err != nil {
		return publish.Target{}, fmt.Errorf("reading target head %s: %w", want, err)
	}
	tree, err := commit.Tree()
	if err != nil {
		return publish.Target{}, fmt.Errorf("reading target tree %s: %w", commit.TreeHash, err)
	}
	return publish.Target{Head: commit.Hash, Tree: tree, Files: c.gitTree(tree)}, nil
}

// remoteTracking is the cache's ref of branch as last fetched or pushed.
func remoteTracking(branch string) plumbing.ReferenceName {
	return plumbing.ReferenceName("refs/remotes/origin/" + branch)
}

// publishResult is what publish did.
type publishResult struct {
	head    plumbing.Hash
	pushed  bool
	retries int
	foreign []string
	changed []string // sites whose files changed in the pushed commit
}

// pushRendered writes in.Files over the target branch starting from st, commits when the tree changed, and pushes
// without force. When the branch moved meanwhile it re-fetches, re-applies and retries with backoff.
func pushRendered(ctx context.Context, c *gitCache, st publish.Target, in publish.Input) (publishResult, error) {
	var res publishResult
	for attempt := 0; ; attempt++ {
		res.retries = attempt
		foreign, err := publish.ForeignCommits(c.repo, st.Head)
		if err != nil {
			return res, err
		}
		res.foreign = foreign
		commit, changed, err := publish.Build(c.repo.Storer, st, in)
		if err != nil {
			return res, err
		}
		if commit.IsZero() {
			res.head, res.changed = st.Head, nil
			return res, nil
		}
		if in.BeforePush != nil {
			in.BeforePush(attempt)
		}
		err = c.push(ctx, in.Branch, st.Head, commit)
		if err == nil {
			res.head, res.pushed, res.changed = commit, true, changed
			in.Log.Info("pushed rendered commit", "commit", commit.String(), "sites", changed, "retries", attempt)
			return res, nil
		}
		if !isPushConflict(err) || attempt+1 >= maxPushAttempts {
			return res, fmt.Errorf("pushing to %s (attempt %d): %w", in.Branch, attempt+1, err)
		}
		in.Log.V(1).Info("target branch moved, re-fetching", "attempt", attempt+1)
		if err := sleepCtx(ctx, backoff(attempt)); err != nil {
			return res, err
		}
		if st, err = c.fetchBranch(ctx, in.Branch); err != nil {
			return res, err
		}
	}
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
