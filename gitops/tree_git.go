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
	"io"
	"sort"

	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/object"
)

// gitTree is a fileTree over a commit's tree in a go-git object store.
type gitTree struct {
	root *object.Tree
}

func newGitTree(root *object.Tree) *gitTree { return &gitTree{root: root} }

func (g *gitTree) lstat(p string) (entry, error) {
	if p == "" {
		return entry{kind: kindDir}, nil
	}
	te, err := g.root.FindEntry(p)
	if errors.Is(err, object.ErrEntryNotFound) || errors.Is(err, object.ErrDirectoryNotFound) {
		return entry{kind: kindMissing}, nil
	}
	if err != nil {
		return entry{}, fmt.Errorf("looking up %q: %w", p, err)
	}
	switch te.Mode {
	case filemode.Dir:
		return entry{kind: kindDir}, nil
	case filemode.Regular, filemode.Executable, filemode.Deprecated:
		size, err := g.root.Size(p)
		if err != nil {
			return entry{}, fmt.Errorf("sizing %q: %w", p, err)
		}
		return entry{kind: kindFile, size: size}, nil
	case filemode.Symlink:
		f, err := g.root.TreeEntryFile(te)
		if err != nil {
			return entry{}, fmt.Errorf("reading symlink %q: %w", p, err)
		}
		target, err := f.Contents()
		if err != nil {
			return entry{}, fmt.Errorf("reading symlink %q: %w", p, err)
		}
		return entry{kind: kindSymlink, target: target}, nil
	default:
		return entry{kind: kindOther}, nil
	}
}

func (g *gitTree) readFile(p string) ([]byte, error) {
	f, err := g.root.File(p)
	if err != nil {
		return nil, fmt.Errorf("reading %q: %w", p, err)
	}
	r, err := f.Reader()
	if err != nil {
		return nil, fmt.Errorf("reading %q: %w", p, err)
	}
	defer func() { _ = r.Close() }()
	b, err := io.ReadAll(r)
	if err != nil {
		return nil, fmt.Errorf("reading %q: %w", p, err)
	}
	return b, nil
}

func (g *gitTree) readDir(p string) ([]string, error) {
	t := g.root
	if p != "" {
		sub, err := g.root.Tree(p)
		if err != nil {
			return nil, fmt.Errorf("listing %q: %w", p, err)
		}
		t = sub
	}
	names := make([]string, 0, len(t.Entries))
	for _, e := range t.Entries {
		names = append(names, e.Name)
	}
	sort.Strings(names)
	return names, nil
}
