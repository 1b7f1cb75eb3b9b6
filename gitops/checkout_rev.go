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
	"fmt"
	"path/filepath"

	git "github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"

	"github.com/siteops/siteops/gitops/internal/tree"
)

// OpenRevision opens commit rev of the Git repository holding dir, read from its object store (the working
// copy is not looked at). rev is a branch, tag, remote-tracking branch (origin/main), commit SHA (short or
// full) or an ancestry expression such as HEAD~1.
func OpenRevision(dir, rev string) (*Checkout, error) {
	root, err := filepath.Abs(dir)
	if err != nil {
		return nil, fmt.Errorf("resolving %s: %w", dir, err)
	}
	// EnableDotGitCommonDir: a linked worktree (`git worktree add`) keeps its objects in the main repository.
	repo, err := git.PlainOpenWithOptions(root, &git.PlainOpenOptions{DetectDotGit: true, EnableDotGitCommonDir: true})
	if err != nil {
		return nil, fmt.Errorf("opening the repository at %s: %w", dir, err)
	}
	h, err := repo.ResolveRevision(plumbing.Revision(rev))
	if err != nil {
		return nil, fmt.Errorf("revision %q not found in %s: %w", rev, dir, err)
	}
	commit, err := repo.CommitObject(*h)
	if err != nil {
		return nil, fmt.Errorf("revision %q (%s) is not a commit: %w", rev, h, err)
	}
	top, err := commit.Tree()
	if err != nil {
		return nil, fmt.Errorf("reading the tree of %s: %w", commit.Hash, err)
	}
	return &Checkout{tree: tree.NewGit(repo.Storer, top), Revision: commit.Hash.String(), release: func() {}}, nil
}
