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
	"path"
	"path/filepath"
	"strings"
	"sync"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/go-git/go-git/v5/plumbing/storer"
)

// guardMemos holds, per source cache folder, the guard results of the last Sync (a *guardMemo). A Sync reads
// and replaces it while it holds the cache's lock.
var guardMemos sync.Map

// guardMemo is the guard result of every site of one Sync, each with the Git entries its walk read, so the
// next Sync re-walks only the sites whose entries changed: an unchanged site costs a few tree lookups
// instead of a walk of its kustomization graph (and of the shared bases, once per site).
type guardMemo struct {
	sites map[string]memoEntry // overlay folder → result
}

// memoEntry is one site's guard result and what it depends on.
type memoEntry struct {
	deps map[string]treeDep
	in   *siteInputs
	err  error // nil or a *guardError
}

// treeDep is what a walk saw at one path: its mode (0: missing) and object hash. kindOnly marks a path
// whose contents the walk did not read (lstat of a folder): only its being a folder matters.
type treeDep struct {
	mode     filemode.FileMode
	hash     plumbing.Hash
	kindOnly bool
}

// memoGuard guards every site like guardSite(t, dir, true) does, reusing the results of the previous Sync of
// the same cache (key) for the sites whose every read entry is unchanged in root, and remembers this Sync's
// results for the next one. Only guard refusals are remembered; any other error is returned as is.
func memoGuard(key string, s storer.EncodedObjectStorer, root *object.Tree) func(dir string) (*siteInputs, error) {
	var prev *guardMemo
	if v, ok := guardMemos.Load(key); ok {
		prev = v.(*guardMemo)
	}
	next := &guardMemo{sites: map[string]memoEntry{}}
	guardMemos.Store(key, next)
	idx := &treeIndex{s: s, root: root, trees: map[string]*object.Tree{}, blobs: map[plumbing.Hash][]byte{}}
	return func(dir string) (*siteInputs, error) {
		if prev != nil {
			if e, ok := prev.sites[dir]; ok && idx.unchanged(e.deps) {
				next.sites[dir] = e
				return e.in, e.err
			}
		}
		rec := &recordingTree{fileTree: newGitTree(root), idx: idx, deps: map[string]treeDep{}}
		in, err := guardSite(rec, dir, true)
		if in != nil {
			in.reached = nil // only AffectedSites reads it, from its own walk
		}
		var refused *guardError
		if err == nil || errors.As(err, &refused) {
			next.sites[dir] = memoEntry{deps: rec.deps, in: in, err: err}
		}
		return in, err
	}
}

// recordingTree is a fileTree over a commit that notes the entry behind every path it is asked about.
type recordingTree struct {
	fileTree
	idx  *treeIndex
	deps map[string]treeDep
}

func (r *recordingTree) note(p string, kindOnly bool) {
	if old, ok := r.deps[p]; ok && !old.kindOnly {
		return
	}
	mode, hash := r.idx.entry(p)
	if kindOnly && mode == filemode.Dir {
		hash = plumbing.ZeroHash
	} else {
		kindOnly = false
	}
	r.deps[p] = treeDep{mode: mode, hash: hash, kindOnly: kindOnly}
}

func (r *recordingTree) lstat(p string) (entry, error) {
	r.note(p, true)
	return r.fileTree.lstat(p)
}

// readFile reads p once per blob: the sites of a Sync share the bytes of the files they all reach (their
// bases), so the guard results of every site hold each shared file once, not once per site. The bytes are
// never written to (kustomize copies what it is given).
func (r *recordingTree) readFile(p string) ([]byte, error) {
	r.note(p, false)
	h := r.deps[p].hash
	if b, ok := r.idx.blobs[h]; ok && !h.IsZero() {
		return b, nil
	}
	b, err := r.fileTree.readFile(p)
	if err == nil && !h.IsZero() {
		r.idx.blobs[h] = b
	}
	return b, err
}

func (r *recordingTree) readDir(p string) ([]string, error) {
	r.note(p, false)
	return r.fileTree.readDir(p)
}

// treeIndex looks up entries of one commit's tree, decoding each folder once.
type treeIndex struct {
	s     storer.EncodedObjectStorer
	root  *object.Tree
	trees map[string]*object.Tree  // folder → its tree; nil when it is not a folder
	blobs map[plumbing.Hash][]byte // contents read so far, shared by the sites reaching the same file
}

// unchanged reports whether every dependency is the same in this tree.
func (x *treeIndex) unchanged(deps map[string]treeDep) bool {
	for p, d := range deps {
		mode, hash := x.entry(p)
		if mode != d.mode || (!d.kindOnly && hash != d.hash) {
			return false
		}
	}
	return true
}

// entry is the mode and hash of path p without following symlinks (mode 0 when missing or below a
// non-folder); the root is a folder with the root tree's hash.
func (x *treeIndex) entry(p string) (filemode.FileMode, plumbing.Hash) {
	if p == "" {
		return filemode.Dir, x.root.Hash
	}
	parent := x.folder(cleanRel(path.Dir(p)))
	if parent == nil {
		return 0, plumbing.ZeroHash
	}
	for _, e := range parent.Entries {
		if e.Name == path.Base(p) {
			return e.Mode, e.Hash
		}
	}
	return 0, plumbing.ZeroHash
}

// folder is the tree of folder f, or nil when f is not a folder.
func (x *treeIndex) folder(f string) *object.Tree {
	if f == "" {
		return x.root
	}
	if t, ok := x.trees[f]; ok {
		return t
	}
	var t *object.Tree
	if mode, hash := x.entry(f); mode == filemode.Dir {
		if sub, err := object.GetTree(x.s, hash); err == nil {
			t = sub
		}
	}
	x.trees[f] = t
	return t
}

// ForgetWorkDir drops what this process remembers about the caches under workDir (the guard results of their
// last Sync); call it when the folder is removed, e.g. when its SiteSync is deleted.
func ForgetWorkDir(workDir string) {
	prefix := filepath.Clean(workDir) + string(filepath.Separator)
	guardMemos.Range(func(k, _ any) bool {
		if strings.HasPrefix(k.(string), prefix) {
			guardMemos.Delete(k)
		}
		return true
	})
}
