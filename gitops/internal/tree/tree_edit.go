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
	"slices"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/go-git/go-git/v5/plumbing/storer"
)

// Edit is a folder of a Git tree being changed: the folder as it was (nil: a new folder) and the
// changes made in it. Only the folders on the paths of the changes are decoded and written again; every
// other folder keeps its tree object, so a commit that changes one site's folder costs the same whatever
// the number of sites.
type Edit struct {
	g    *Git
	base *treeNode
	set  map[string]*object.TreeEntry // name → new entry; nil: removed
	subs map[string]*Edit             // name → folder changed below it
}

// NewEdit starts editing g's tree (nil: an empty tree).
func NewEdit(g *Git) *Edit {
	e := &Edit{g: g}
	if g != nil {
		e.base = g.root
	}
	return e
}

// lookup is the entry called name as edited so far.
func (e *Edit) lookup(name string) (object.TreeEntry, bool) {
	if ent, ok := e.set[name]; ok {
		if ent == nil {
			return object.TreeEntry{}, false
		}
		return *ent, true
	}
	if e.base == nil {
		return object.TreeEntry{}, false
	}
	return e.base.find(name)
}

// sub is the edit of folder name, started from the folder there (a new folder when it is missing or not a
// folder); nil when create is false and there is no folder.
func (e *Edit) sub(name string, create bool) (*Edit, error) {
	if s, ok := e.subs[name]; ok {
		return s, nil
	}
	s := &Edit{g: e.g}
	if ent, ok := e.lookup(name); ok && ent.Mode == filemode.Dir {
		base, err := e.g.memo.tree(e.g.s, ent.Hash)
		if err != nil {
			return nil, err
		}
		s.base = base
	} else if !create {
		return nil, nil
	}
	if e.subs == nil {
		e.subs = map[string]*Edit{}
	}
	e.subs[name] = s
	return s, nil
}

// put sets path p to ent (nil: removes it and everything under it) and reports whether that changed the tree.
func (e *Edit) put(p string, ent *object.TreeEntry) (bool, error) {
	parts := strings.Split(p, "/")
	for _, d := range parts[:len(parts)-1] {
		s, err := e.sub(d, ent != nil)
		if err != nil || s == nil {
			return false, err
		}
		e = s
	}
	name := parts[len(parts)-1]
	old, had := e.lookup(name)
	if _, edited := e.subs[name]; edited {
		had, old = true, object.TreeEntry{} // a folder changed below: replacing it is a change
		delete(e.subs, name)
	}
	if ent == nil && !had || ent != nil && had && old.Mode == ent.Mode && old.Hash == ent.Hash {
		return false, nil
	}
	if e.set == nil {
		e.set = map[string]*object.TreeEntry{}
	}
	if ent != nil {
		ent = &object.TreeEntry{Name: name, Mode: ent.Mode, Hash: ent.Hash}
	}
	e.set[name] = ent
	return true, nil
}

// ReplaceDir makes folder dir hold exactly one file, name with the stored blob h, and reports whether that
// changed the tree.
func (e *Edit) ReplaceDir(s storer.EncodedObjectStorer, dir, name string, h plumbing.Hash) (bool, error) {
	obj := s.NewEncodedObject()
	if err := (&object.Tree{Entries: []object.TreeEntry{{Name: name, Mode: filemode.Regular,
		Hash: h}}}).Encode(obj); err != nil {
		return false, fmt.Errorf("encoding tree %q: %w", dir, err)
	}
	changed, err := e.put(dir, &object.TreeEntry{Mode: filemode.Dir, Hash: obj.Hash()})
	if err != nil || !changed {
		return false, err
	}
	_, err = storeIfMissing(s, obj)
	return err == nil, err
}

// PutFile sets path p to the stored blob h, a regular file, and reports whether that changed the tree.
func (e *Edit) PutFile(p string, h plumbing.Hash) (bool, error) {
	return e.put(p, &object.TreeEntry{Mode: filemode.Regular, Hash: h})
}

// RemoveDir removes dir and everything under it, and reports whether anything was there.
func (e *Edit) RemoveDir(dir string) (bool, error) { return e.put(dir, nil) }

// Write stores the changed folders and returns the hash of the edited tree; empty is true when the folder
// is left with no entry (a parent then drops it).
func (e *Edit) Write(s storer.EncodedObjectStorer, prefix string) (h plumbing.Hash, empty bool, err error) {
	var entries []object.TreeEntry
	if e.base != nil {
		entries = make([]object.TreeEntry, 0, len(e.base.entries)+len(e.set))
		for _, ent := range e.base.entries {
			_, replaced := e.set[ent.Name]
			if _, edited := e.subs[ent.Name]; !replaced && !edited {
				entries = append(entries, ent)
			}
		}
	}
	for _, ent := range e.set {
		if ent != nil {
			entries = append(entries, *ent)
		}
	}
	for name, sub := range e.subs {
		sh, subEmpty, err := sub.Write(s, prefix+name+"/")
		if err != nil {
			return plumbing.ZeroHash, false, err
		}
		if !subEmpty {
			entries = append(entries, object.TreeEntry{Name: name, Mode: filemode.Dir, Hash: sh})
		}
	}
	slices.SortFunc(entries, gitOrder)
	obj := s.NewEncodedObject()
	if err := (&object.Tree{Entries: entries}).Encode(obj); err != nil {
		return plumbing.ZeroHash, false, fmt.Errorf("encoding tree %q: %w", prefix, err)
	}
	h, err = storeIfMissing(s, obj)
	return h, len(entries) == 0, err
}

// gitOrder orders tree entries as Git does: by name, a folder's name compared as if it ended in "/".
func gitOrder(a, b object.TreeEntry) int {
	n := min(len(a.Name), len(b.Name))
	if c := strings.Compare(a.Name[:n], b.Name[:n]); c != 0 {
		return c
	}
	return int(nameByte(a, n)) - int(nameByte(b, n))
}

// nameByte is byte i of e's name followed by "/" for a folder; 0 past its end.
func nameByte(e object.TreeEntry, i int) byte {
	switch {
	case i < len(e.Name):
		return e.Name[i]
	case i == len(e.Name) && e.Mode == filemode.Dir:
		return '/'
	default:
		return 0
	}
}
