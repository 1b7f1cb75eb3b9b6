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
	"maps"
	"slices"

	git "github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"
)

// ChangedPaths lists the paths that differ between revisions from and to (anything `git rev-parse` accepts
// that go-git resolves: SHA, branch, tag, HEAD~n) of the repository containing dir, sorted; a rename lists
// both names.
func ChangedPaths(dir, from, to string) ([]string, error) {
	repo, err := git.PlainOpen(dir) // a bare repository or a work tree root
	if err != nil {
		repo, err = git.PlainOpenWithOptions(dir, &git.PlainOpenOptions{DetectDotGit: true})
	}
	if err != nil {
		return nil, fmt.Errorf("opening the repository at %s: %w", dir, err)
	}
	a, err := revisionTree(repo, from)
	if err != nil {
		return nil, err
	}
	b, err := revisionTree(repo, to)
	if err != nil {
		return nil, err
	}
	return diffPaths(a, b)
}

func revisionTree(repo *git.Repository, rev string) (*object.Tree, error) {
	h, err := repo.ResolveRevision(plumbing.Revision(rev))
	if err != nil {
		return nil, fmt.Errorf("resolving %q: %w", rev, err)
	}
	c, err := repo.CommitObject(*h)
	if err != nil {
		return nil, fmt.Errorf("reading commit %s: %w", h, err)
	}
	t, err := c.Tree()
	if err != nil {
		return nil, fmt.Errorf("reading the tree of %s: %w", h, err)
	}
	return t, nil
}

// diffPaths lists the paths changed between two trees, sorted.
func diffPaths(a, b *object.Tree) ([]string, error) {
	changes, err := object.DiffTree(a, b)
	if err != nil {
		return nil, fmt.Errorf("diffing trees: %w", err)
	}
	set := map[string]struct{}{}
	for _, ch := range changes {
		for _, n := range []string{ch.From.Name, ch.To.Name} {
			if n != "" {
				set[n] = struct{}{}
			}
		}
	}
	return slices.Sorted(maps.Keys(set)), nil
}
