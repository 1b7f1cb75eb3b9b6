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

package tree

import (
	"fmt"
	"io"
	"path"
	"sort"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/go-git/go-git/v5/plumbing/storer"
)

// Git is a FS over a commit's tree in a go-git object store. It decodes each folder once and
// looks names up in the folder's own index, so a lookup costs the same in a folder of ten entries as in one
// of ten thousand (go-git's Tree.FindEntry decodes every folder on the path again on each call). It is not
// safe for concurrent use.
type Git struct {
	s       storer.EncodedObjectStorer
	root    *treeNode
	folders map[string]*treeNode // folder → its tree; nil when it is missing or not a folder
	memo    *Memo
}

// NewGit is a Git over root, a tree of s.
func NewGit(s storer.EncodedObjectStorer, root *object.Tree) *Git {
	return NewMemoGit(s, root, NewMemo())
}

// NewMemoGit is a Git over root that takes the folders it decodes from memo (a Sync's memo of its
// cache), and adds them to it.
func NewMemoGit(s storer.EncodedObjectStorer, root *object.Tree, memo *Memo) *Git {
	return &Git{s: s, root: newTreeNode(root), folders: map[string]*treeNode{}, memo: memo}
}

// folder is the tree of folder f ("" is the root), or nil when f is missing or not a folder.
func (g *Git) folder(f string) (*treeNode, error) {
	if f == "" {
		return g.root, nil
	}
	if t, ok := g.folders[f]; ok {
		return t, nil
	}
	parent, err := g.folder(CleanRel(path.Dir(f)))
	if err != nil || parent == nil {
		return nil, err
	}
	var t *treeNode
	if e, ok := parent.find(path.Base(f)); ok && e.Mode == filemode.Dir {
		if t, err = g.memo.tree(g.s, e.Hash); err != nil {
			return nil, fmt.Errorf("reading folder %q: %w", f, err)
		}
	}
	g.folders[f] = t
	return t, nil
}

// find is the entry of path p (not the root); ok is false when it is missing.
func (g *Git) find(p string) (object.TreeEntry, bool, error) {
	parent, err := g.folder(CleanRel(path.Dir(p)))
	if err != nil || parent == nil {
		return object.TreeEntry{}, false, err
	}
	e, ok := parent.find(path.Base(p))
	return e, ok, nil
}

// Entry is the mode and hash of path p without following symlinks (mode 0 when missing or below a
// non-folder); the root is a folder with the root tree's hash. Callers that key memos by content use it to
// learn a folder's or file's hash without reading it.
func (g *Git) Entry(p string) (filemode.FileMode, plumbing.Hash, error) {
	if p == "" {
		return filemode.Dir, g.root.hash, nil
	}
	e, ok, err := g.find(p)
	if err != nil || !ok {
		return 0, plumbing.ZeroHash, err
	}
	return e.Mode, e.Hash, nil
}

// Lstat describes p without following it; a missing path, or one below a non-folder, is Missing with a nil
// error.
func (g *Git) Lstat(p string) (Entry, error) {
	if p == "" {
		return Entry{Kind: Dir}, nil
	}
	te, ok, err := g.find(p)
	if err != nil {
		return Entry{}, fmt.Errorf("looking up %q: %w", p, err)
	}
	if !ok {
		return Entry{Kind: Missing}, nil
	}
	switch te.Mode {
	case filemode.Dir:
		return Entry{Kind: Dir}, nil
	case filemode.Regular, filemode.Executable, filemode.Deprecated:
		size, err := g.memo.size(g.s, te.Hash)
		if err != nil {
			return Entry{}, fmt.Errorf("sizing %q: %w", p, err)
		}
		return Entry{Kind: File, Size: size}, nil
	case filemode.Symlink:
		target, err := g.blob(te.Hash)
		if err != nil {
			return Entry{}, fmt.Errorf("reading symlink %q: %w", p, err)
		}
		return Entry{Kind: Symlink, Target: string(target)}, nil
	default:
		return Entry{Kind: Other}, nil
	}
}

// ReadFile returns the bytes of the blob at p; a folder, a submodule or a missing path is
// object.ErrFileNotFound.
func (g *Git) ReadFile(p string) ([]byte, error) {
	te, ok, err := g.find(p)
	if err == nil && (!ok || te.Mode == filemode.Dir || te.Mode == filemode.Submodule) {
		err = object.ErrFileNotFound
	}
	if err != nil {
		return nil, fmt.Errorf("reading %q: %w", p, err)
	}
	b, err := g.blob(te.Hash)
	if err != nil {
		return nil, fmt.Errorf("reading %q: %w", p, err)
	}
	return b, nil
}

// blob is the contents of blob h.
func (g *Git) blob(h plumbing.Hash) ([]byte, error) {
	b, err := object.GetBlob(g.s, h)
	if err != nil {
		return nil, err
	}
	r, err := b.Reader()
	if err != nil {
		return nil, err
	}
	defer func() { _ = r.Close() }()
	return io.ReadAll(r)
}

// ReadDir lists the names in folder p, sorted; a path that is not a folder is object.ErrDirectoryNotFound.
func (g *Git) ReadDir(p string) ([]string, error) {
	t, err := g.folder(p)
	if err == nil && t == nil {
		err = object.ErrDirectoryNotFound
	}
	if err != nil {
		return nil, fmt.Errorf("listing %q: %w", p, err)
	}
	names := make([]string, 0, len(t.entries))
	for _, e := range t.entries {
		names = append(names, e.Name)
	}
	sort.Strings(names)
	return names, nil
}
