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
	"strings"
	"sync"
	"sync/atomic"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"

	"github.com/siteops/siteops/gitops/guard"
	"github.com/siteops/siteops/gitops/internal/tree"
)

// guardMemos holds, per source cache folder, the guard results of the last Sync. A Sync reads and replaces
// its folder's entry while it holds the cache's lock.
type guardMemos struct {
	mu    sync.Mutex
	byKey map[string]*guardMemo
	// generation numbers the guard calls, so a depSet checked in one is checked again in the next.
	generation atomic.Uint64
}

func newGuardMemos() *guardMemos { return &guardMemos{byKey: map[string]*guardMemo{}} }

// swap stores next as the memo of key and returns the one it replaces (nil: none).
func (gm *guardMemos) swap(key string, next *guardMemo) *guardMemo {
	gm.mu.Lock()
	defer gm.mu.Unlock()
	prev := gm.byKey[key]
	gm.byKey[key] = next
	return prev
}

// forget drops the memos of the cache folders under prefix (a folder path ending in a separator).
func (gm *guardMemos) forget(prefix string) {
	gm.mu.Lock()
	defer gm.mu.Unlock()
	for key := range gm.byKey {
		if strings.HasPrefix(key, prefix) {
			delete(gm.byKey, key)
		}
	}
}

// guardMemo is the guard result of every site of one Sync, each with the Git entries its walk read, so the
// next Sync re-walks only the sites whose entries changed: an unchanged site costs two lookups (siteDeps)
// instead of a walk of its kustomization graph (and of the shared bases, once per site).
type guardMemo struct {
	sites map[string]memoEntry // overlay folder → result
	sets  depSets              // the entries read outside the sites' folders, shared
}

// memoEntry is one site's guard result and what it depends on.
type memoEntry struct {
	deps siteDeps
	in   *guard.Inputs
	err  error // nil or a *Refusal
}

// treeDep is what a walk saw at one path: its mode (0: missing) and object hash. kindOnly marks a path
// whose contents the walk did not read (lstat of a folder): only its being a folder matters.
type treeDep struct {
	mode     filemode.FileMode
	hash     plumbing.Hash
	kindOnly bool
}

// guard guards every site like Site(t, dir) does, reusing the results of the previous Sync of
// the same cache (key) for the sites whose every read entry is unchanged in t, and remembers this Sync's
// results for the next one. Only guard refusals are remembered; any other error is returned as is.
func (gm *guardMemos) guard(key string, t *tree.Git) func(dir string) (*guard.Inputs, error) {
	next := &guardMemo{sites: map[string]memoEntry{}, sets: depSets{}}
	prev := gm.swap(key, next)
	var prevSets depSets
	if prev != nil {
		prevSets = prev.sets
	}
	gen := gm.generation.Add(1)
	blobs := map[plumbing.Hash][]byte{}
	return func(dir string) (*guard.Inputs, error) {
		if prev != nil {
			if e, ok := prev.sites[dir]; ok {
				same, err := e.deps.unchanged(t, gen)
				if err != nil {
					return nil, err
				}
				if same {
					next.sites[dir] = e
					next.sets[e.deps.outside.key] = e.deps.outside
					return e.in, e.err
				}
			}
		}
		rec := &recordingTree{FS: t, git: t, blobs: blobs, deps: map[string]treeDep{}}
		in, err := guard.Site(rec, dir)
		var refused *guard.Refusal
		if err == nil || errors.As(err, &refused) {
			deps, derr := splitDeps(t, dir, rec.deps, next.sets, prevSets)
			if derr != nil {
				return nil, derr
			}
			next.sites[dir] = memoEntry{deps: deps, in: in, err: err}
		}
		return in, err
	}
}

// recordingTree is a FS over a commit that notes the entry behind every path it is asked about.
type recordingTree struct {
	tree.FS
	git   *tree.Git
	deps  map[string]treeDep
	blobs map[plumbing.Hash][]byte // contents read so far, shared by the sites reaching the same file
}

func (r *recordingTree) note(p string, kindOnly bool) error {
	if old, ok := r.deps[p]; ok && !old.kindOnly {
		return nil
	}
	mode, hash, err := r.git.Entry(p)
	if err != nil {
		return err
	}
	if kindOnly && mode == filemode.Dir {
		hash = plumbing.ZeroHash
	} else {
		kindOnly = false
	}
	r.deps[p] = treeDep{mode: mode, hash: hash, kindOnly: kindOnly}
	return nil
}

func (r *recordingTree) Lstat(p string) (tree.Entry, error) {
	if err := r.note(p, true); err != nil {
		return tree.Entry{}, err
	}
	return r.FS.Lstat(p)
}

// ReadFile reads p once per blob: the sites of a Sync share the bytes of the files they all reach (their
// bases), so the guard results of every site hold each shared file once, not once per site. The bytes are
// never written to (kustomize copies what it is given).
func (r *recordingTree) ReadFile(p string) ([]byte, error) {
	if err := r.note(p, false); err != nil {
		return nil, err
	}
	h := r.deps[p].hash
	if b, ok := r.blobs[h]; ok && !h.IsZero() {
		return b, nil
	}
	b, err := r.FS.ReadFile(p)
	if err == nil && !h.IsZero() {
		r.blobs[h] = b
	}
	return b, err
}

func (r *recordingTree) ReadDir(p string) ([]string, error) {
	if err := r.note(p, false); err != nil {
		return nil, err
	}
	return r.FS.ReadDir(p)
}
