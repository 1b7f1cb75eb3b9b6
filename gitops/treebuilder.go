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
	"strings"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/go-git/go-git/v5/plumbing/storer"
)

// flatTree maps every non-folder path of a Git tree to its entry.
type flatTree map[string]object.TreeEntry

// flatten lists every file, symlink and submodule of t (nil is empty).
func flatten(t *object.Tree) (flatTree, error) {
	out := flatTree{}
	if t == nil {
		return out, nil
	}
	w := object.NewTreeWalker(t, true, nil)
	defer w.Close()
	for {
		name, e, err := w.Next()
		if errors.Is(err, io.EOF) {
			return out, nil
		}
		if err != nil {
			return nil, fmt.Errorf("walking tree %s: %w", t.Hash, err)
		}
		if e.Mode != filemode.Dir {
			out[name] = e
		}
	}
}

// replaceDir makes dir hold exactly one file, name with the stored blob h: everything else under dir is
// removed. It returns whether the tree changed.
func (f flatTree) replaceDir(dir, name string, h plumbing.Hash) bool {
	file := dir + "/" + name
	old, had := f[file]
	delete(f, file)
	changed := f.removeDir(dir) || !had || old.Hash != h || old.Mode != filemode.Regular
	f[file] = object.TreeEntry{Name: name, Mode: filemode.Regular, Hash: h}
	return changed
}

// removeDir deletes dir and everything under it from f and reports whether anything was there.
func (f flatTree) removeDir(dir string) bool {
	removed := false
	prefix := dir + "/"
	for p := range f {
		if p == dir || strings.HasPrefix(p, prefix) {
			delete(f, p)
			removed = true
		}
	}
	return removed
}

// write stores the nested trees of f and returns the root tree's hash. The flat paths are grouped into
// folders once, so the cost grows with the number of entries, not with entries × folders; trees already in
// the store (the folders no site of this commit changed) are not written again.
func (f flatTree) write(s storer.EncodedObjectStorer) (plumbing.Hash, error) {
	root := &folder{}
	for p, e := range f {
		n := root
		dirs := strings.Split(p, "/")
		for _, d := range dirs[:len(dirs)-1] {
			if n.dirs == nil {
				n.dirs = map[string]*folder{}
			}
			sub, ok := n.dirs[d]
			if !ok {
				sub = &folder{}
				n.dirs[d] = sub
			}
			n = sub
		}
		e.Name = dirs[len(dirs)-1]
		n.files = append(n.files, e)
	}
	return root.write(s, "")
}

// folder is one level of a flatTree being written.
type folder struct {
	files []object.TreeEntry
	dirs  map[string]*folder
}

func (n *folder) write(s storer.EncodedObjectStorer, prefix string) (plumbing.Hash, error) {
	entries := append(make([]object.TreeEntry, 0, len(n.files)+len(n.dirs)), n.files...)
	for name, sub := range n.dirs {
		h, err := sub.write(s, prefix+name+"/")
		if err != nil {
			return plumbing.ZeroHash, err
		}
		entries = append(entries, object.TreeEntry{Name: name, Mode: filemode.Dir, Hash: h})
	}
	// Git orders entries by name, a folder's name compared as if it ended in "/".
	sortKey := func(e object.TreeEntry) string {
		if e.Mode == filemode.Dir {
			return e.Name + "/"
		}
		return e.Name
	}
	sort.Slice(entries, func(i, j int) bool { return sortKey(entries[i]) < sortKey(entries[j]) })
	obj := s.NewEncodedObject()
	if err := (&object.Tree{Entries: entries}).Encode(obj); err != nil {
		return plumbing.ZeroHash, fmt.Errorf("encoding tree %q: %w", prefix, err)
	}
	return storeIfMissing(s, obj)
}

func storeBlob(s storer.EncodedObjectStorer, content []byte) (plumbing.Hash, error) {
	obj := s.NewEncodedObject()
	obj.SetType(plumbing.BlobObject)
	w, err := obj.Writer()
	if err != nil {
		return plumbing.ZeroHash, fmt.Errorf("storing blob: %w", err)
	}
	if _, err := w.Write(content); err != nil {
		return plumbing.ZeroHash, fmt.Errorf("storing blob: %w", err)
	}
	if err := w.Close(); err != nil {
		return plumbing.ZeroHash, fmt.Errorf("storing blob: %w", err)
	}
	return storeIfMissing(s, obj)
}

// storeIfMissing stores obj unless the store already has it (a site whose output did not change, a folder
// no site changed): writing it again would cost a compressed file write for nothing.
func storeIfMissing(s storer.EncodedObjectStorer, obj plumbing.EncodedObject) (plumbing.Hash, error) {
	if h := obj.Hash(); s.HasEncodedObject(h) == nil {
		return h, nil
	}
	h, err := s.SetEncodedObject(obj)
	if err != nil {
		return plumbing.ZeroHash, fmt.Errorf("storing %s: %w", obj.Type(), err)
	}
	return h, nil
}
