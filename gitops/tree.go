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
	"path"
	"strings"
)

// entryKind is what a path in a fileTree is.
type entryKind int

const (
	kindMissing entryKind = iota
	kindFile
	kindDir
	kindSymlink
	kindOther // submodule, device, socket…: never read
)

// entry describes one path of a fileTree without following it.
type entry struct {
	kind   entryKind
	size   int64
	target string // symlink target, as stored
}

// fileTree is a read-only view of a checkout: a Git commit's tree or a folder on disk. Paths are clean,
// slash-separated and relative to the root ("" is the root); implementations never follow symlinks themselves,
// resolve does, so nothing outside the root is ever read.
type fileTree interface {
	// lstat describes p; a missing path is kindMissing with a nil error. Every folder on the way to p must be
	// a real folder (callers pass resolved prefixes).
	lstat(p string) (entry, error)
	// readFile returns the bytes of the regular file p.
	readFile(p string) ([]byte, error)
	// readDir lists the names in folder p, sorted.
	readDir(p string) ([]string, error)
}

// maxSymlinkHops bounds symlink resolution (loops).
const maxSymlinkHops = 40

// escapesRoot reports whether a clean relative path leaves the root.
func escapesRoot(p string) bool {
	return p == ".." || strings.HasPrefix(p, "../")
}

// cleanRel cleans a slash path relative to the root; "." becomes "".
func cleanRel(p string) string {
	p = path.Clean(p)
	if p == "." {
		return ""
	}
	return p
}

// resolve follows the symlinks of p (a clean relative path) inside the tree and returns the real path and its
// entry. A symlink that is absolute or points outside the root, or too many hops, is an error; a missing path
// is kindMissing (with the real path as far as it exists).
func resolve(t fileTree, p string) (string, entry, error) {
	p = cleanRel(p)
	if escapesRoot(p) {
		return "", entry{}, fmt.Errorf("path %q leaves the checkout", p)
	}
	if p == "" {
		return "", entry{kind: kindDir}, nil
	}
	parts := strings.Split(p, "/")
	cur, hops := "", 0
	for i := 0; i < len(parts); i++ {
		next := path.Join(cur, parts[i])
		e, err := t.lstat(next)
		if err != nil {
			return "", entry{}, err
		}
		switch e.kind {
		case kindSymlink:
			hops++
			if hops > maxSymlinkHops {
				return "", entry{}, fmt.Errorf("path %q: too many levels of symbolic links", p)
			}
			if path.IsAbs(e.target) || strings.HasPrefix(e.target, "\\") {
				return "", entry{}, fmt.Errorf("symlink %q points to absolute path %q outside the checkout", next, e.target)
			}
			joined := cleanRel(path.Join(cur, e.target))
			if escapesRoot(joined) {
				return "", entry{}, fmt.Errorf("symlink %q points to %q outside the checkout", next, e.target)
			}
			rest := parts[i+1:]
			parts = append(splitNonEmpty(joined), rest...)
			cur, i = "", -1
			if len(parts) == 0 {
				return "", entry{kind: kindDir}, nil
			}
		case kindMissing:
			return path.Join(append([]string{next}, parts[i+1:]...)...), e, nil
		default:
			if i < len(parts)-1 && e.kind != kindDir {
				return "", entry{}, fmt.Errorf("path %q: %q is not a folder", p, next)
			}
			cur = next
			if i == len(parts)-1 {
				return cur, e, nil
			}
		}
	}
	return cur, entry{kind: kindDir}, nil
}

func splitNonEmpty(p string) []string {
	if p == "" {
		return nil
	}
	return strings.Split(p, "/")
}

// cachedTree memoizes lstat of another tree for one pass (a guard walk, an AffectedSites call): the walk
// resolves the same folders many times.
type cachedTree struct {
	fileTree
	stats map[string]entry
}

func newCachedTree(t fileTree) fileTree {
	if _, ok := t.(*cachedTree); ok {
		return t
	}
	return &cachedTree{fileTree: t, stats: map[string]entry{}}
}

func (c *cachedTree) lstat(p string) (entry, error) {
	if e, ok := c.stats[p]; ok {
		return e, nil
	}
	e, err := c.fileTree.lstat(p)
	if err == nil {
		c.stats[p] = e
	}
	return e, err
}
