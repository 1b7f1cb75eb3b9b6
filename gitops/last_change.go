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
	"errors"
	"fmt"
	"path"

	git "github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"

	"github.com/siteops/siteops/gitops/source"
)

// lastChangeDepth bounds how many commits of the target branch findLastChanges reads.
const lastChangeDepth = 1000

// findLastChanges fills in RenderedCommit for the sites of plan that have none (a spec change re-rendered
// them without their previous state, and their folder did not change): the newest commit on the first-parent
// history of head that changed a file under the site's folder. A site whose folder no commit within
// lastChangeDepth changed keeps "".
func findLastChanges(c *source.Cache, head plumbing.Hash, plan *sitePlan) error {
	want := map[string]*SiteState{} // folder → site
	for _, r := range plan.runs {
		if r.path != "" && r.state.RenderedCommit == "" {
			want[r.path] = r.state
		}
	}
	if len(want) == 0 || head.IsZero() {
		return nil
	}
	_, err := walkChanges(c.Repo(), head, func(commit *object.Commit, changed []string) bool {
		for _, p := range changed {
			for dir := p; dir != "."; dir = path.Dir(dir) {
				if s, ok := want[dir]; ok {
					s.RenderedCommit = commit.Hash.String()
					delete(want, dir)
				}
			}
		}
		return len(want) > 0
	})
	return err
}

// walkChanges calls visit with each commit on the first-parent history of head, newest first, and the files
// it changed, until visit returns false or lastChangeDepth commits were read. It reports whether the bound
// ended the walk with commits left to read.
func walkChanges(repo *git.Repository, head plumbing.Hash,
	visit func(commit *object.Commit, changed []string) bool) (bool, error) {
	commit, err := repo.CommitObject(head)
	if err != nil {
		return false, fmt.Errorf("reading rendered commit %s: %w", head, err)
	}
	for depth := 0; commit != nil; depth++ {
		if depth == lastChangeDepth {
			return true, nil
		}
		parent, err := commit.Parent(0)
		if err != nil && !errors.Is(err, object.ErrParentNotFound) {
			return false, fmt.Errorf("reading the parent of %s: %w", commit.Hash, err)
		}
		changed, err := changedPaths(commit, parent)
		if err != nil {
			return false, err
		}
		if !visit(commit, changed) {
			return false, nil
		}
		commit = parent
	}
	return false, nil
}

// changedPaths lists the files that differ between parent (nil for a root commit) and commit. The diff
// descends only into trees whose hashes differ, so it costs what the commit changed, not the branch's size.
func changedPaths(commit, parent *object.Commit) ([]string, error) {
	to, err := commit.Tree()
	if err != nil {
		return nil, fmt.Errorf("reading the tree of %s: %w", commit.Hash, err)
	}
	var from *object.Tree
	if parent != nil {
		if from, err = parent.Tree(); err != nil {
			return nil, fmt.Errorf("reading the tree of %s: %w", parent.Hash, err)
		}
	}
	changes, err := object.DiffTree(from, to)
	if err != nil {
		return nil, fmt.Errorf("comparing %s with its parent: %w", commit.Hash, err)
	}
	paths := make([]string, 0, len(changes))
	for _, ch := range changes {
		name := ch.To.Name
		if name == "" {
			name = ch.From.Name
		}
		paths = append(paths, name)
	}
	return paths, nil
}
