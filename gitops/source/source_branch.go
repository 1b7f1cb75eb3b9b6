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
	"fmt"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"

	"github.com/siteops/siteops/gitops/internal/tree"
)

// Branch is the fetched head of a branch (zero hash and nil tree when it does not exist yet).
type Branch struct {
	Head  plumbing.Hash
	Tree  *object.Tree
	Files *tree.Git // Tree's folders, decoded once
}

// FetchBranch lists the remote and fetches the whole history of branch (to find the last siteops commit)
// into the cache.
func (c *Cache) FetchBranch(ctx context.Context, branch string) (Branch, error) {
	refs, err := c.listRemote(ctx)
	if err != nil {
		return Branch{}, err
	}
	return c.FetchListedBranch(ctx, refs, branch)
}

// FetchListedBranch fetches branch at the commit refs lists for it (a listing of the same repository, e.g.
// the one made for the source), which costs a request only when the cache does not have that commit yet.
func (c *Cache) FetchListedBranch(ctx context.Context, refs Refs, branch string) (Branch, error) {
	want, ok := refs.hashes[plumbing.NewBranchReferenceName(branch)]
	if !ok {
		return Branch{}, nil
	}
	if err := c.fetchRefAt(ctx, refs, want, remoteTracking(branch), 0); err != nil {
		return Branch{}, err
	}
	commit, err := c.repo.CommitObject(want)
	if err != nil {
		return Branch{}, fmt.Errorf("reading target head %s: %w", want, err)
	}
	tree, err := commit.Tree()
	if err != nil {
		return Branch{}, fmt.Errorf("reading target tree %s: %w", commit.TreeHash, err)
	}
	return Branch{Head: commit.Hash, Tree: tree, Files: c.Tree(tree)}, nil
}

// remoteTracking is the cache's ref of branch as last fetched or pushed.
func remoteTracking(branch string) plumbing.ReferenceName {
	return plumbing.ReferenceName("refs/remotes/origin/" + branch)
}
