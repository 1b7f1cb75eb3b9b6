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
	"github.com/siteops/siteops/gitops/source"
)

const (
	// maxPushAttempts bounds fetch-rebuild-push rounds when the target branch moves under us.
	maxPushAttempts = 5
	pushBackoffBase = 200 * time.Millisecond
)

// publishResult is what pushRendered did.
type publishResult struct {
	head    plumbing.Hash
	pushed  bool
	retries int
	foreign []string
	changed []string // sites whose files changed in the pushed commit
}

// pushRendered writes in.Files over the target branch starting from st, commits when the tree changed, and pushes
// without force. When the branch moved meanwhile it re-fetches, re-applies and retries with backoff.
func pushRendered(ctx context.Context, c *source.Cache, st publish.Target, in publish.Input) (publishResult, error) {
	var res publishResult
	for attempt := 0; ; attempt++ {
		res.retries = attempt
		foreign, err := publish.ForeignCommits(c.Repo(), st.Head)
		if err != nil {
			return res, err
		}
		res.foreign = foreign
		commit, changed, err := publish.Build(c.Repo().Storer, st, in)
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
		err = c.Push(ctx, in.Branch, st.Head, commit)
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
		b, err := c.FetchBranch(ctx, in.Branch)
		if err != nil {
			return res, err
		}
		st = publish.Target(b)
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
