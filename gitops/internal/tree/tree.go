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

// Package tree reads a checkout without ever leaving it: a read-only FS over a Git commit's tree or a folder
// on disk, symlinks resolved inside the root only, the decoded Git trees a Syncer remembers between Syncs,
// and the edits that write a new tree folder by folder.
package tree

import (
	"fmt"
	"path"
	"strings"
)

// Kind is what a path in a FS is.
type Kind int

// The kinds of path a FS reports.
const (
	// Missing is a path that does not exist (or lies below a non-folder); Lstat reports it with a nil error.
	Missing Kind = iota
	// File is a regular file, executable or not.
	File
	// Dir is a folder.
	Dir
	// Symlink is a symbolic link, reported unfollowed with its stored target.
	Symlink
	// Other is anything else (submodule, device, socket…): never read, and refused where a file is expected.
	Other
)

// Entry describes one path of a FS without following it.
type Entry struct {
	Kind   Kind
	Size   int64
	Target string // symlink target, as stored
}

// FS is a read-only view of a checkout: a Git commit's tree or a folder on disk. Paths are clean,
// slash-separated and relative to the root ("" is the root); implementations never follow symlinks themselves,
// Resolve does, so nothing outside the root is ever read.
type FS interface {
	// Lstat describes p; a missing path is Missing with a nil error. Every folder on the way to p must be
	// a real folder (callers pass resolved prefixes).
	Lstat(p string) (Entry, error)
	// ReadFile returns the bytes of the regular file p.
	ReadFile(p string) ([]byte, error)
	// ReadDir lists the names in folder p, sorted.
	ReadDir(p string) ([]string, error)
}

// maxSymlinkHops bounds symlink resolution (loops).
const maxSymlinkHops = 40

// EscapesRoot reports whether a clean relative path leaves the root.
func EscapesRoot(p string) bool {
	return p == ".." || strings.HasPrefix(p, "../")
}

// CleanRel cleans a slash path relative to the root; "." becomes "".
func CleanRel(p string) string {
	p = path.Clean(p)
	if p == "." {
		return ""
	}
	return p
}

// Resolve follows the symlinks of p (a clean relative path) inside the tree and returns the real path and its
// entry. A symlink that is absolute or points outside the root, or too many hops, is an error; a missing path
// is Missing (with the real path as far as it exists).
func Resolve(t FS, p string) (string, Entry, error) {
	p = CleanRel(p)
	if EscapesRoot(p) {
		return "", Entry{}, fmt.Errorf("path %q leaves the checkout", p)
	}
	if p == "" {
		return "", Entry{Kind: Dir}, nil
	}
	parts := strings.Split(p, "/")
	cur, hops := "", 0
	for i := 0; i < len(parts); i++ {
		next := path.Join(cur, parts[i])
		e, err := t.Lstat(next)
		if err != nil {
			return "", Entry{}, err
		}
		switch e.Kind {
		case Symlink:
			hops++
			if hops > maxSymlinkHops {
				return "", Entry{}, fmt.Errorf("path %q: too many levels of symbolic links", p)
			}
			if path.IsAbs(e.Target) || strings.HasPrefix(e.Target, "\\") {
				return "", Entry{}, fmt.Errorf("symlink %q points to absolute path %q outside the checkout", next, e.Target)
			}
			joined := CleanRel(path.Join(cur, e.Target))
			if EscapesRoot(joined) {
				return "", Entry{}, fmt.Errorf("symlink %q points to %q outside the checkout", next, e.Target)
			}
			rest := parts[i+1:]
			parts = append(splitNonEmpty(joined), rest...)
			cur, i = "", -1
			if len(parts) == 0 {
				return "", Entry{Kind: Dir}, nil
			}
		case Missing:
			return path.Join(append([]string{next}, parts[i+1:]...)...), e, nil
		default:
			if i < len(parts)-1 && e.Kind != Dir {
				return "", Entry{}, fmt.Errorf("path %q: %q is not a folder", p, next)
			}
			cur = next
			if i == len(parts)-1 {
				return cur, e, nil
			}
		}
	}
	return cur, Entry{Kind: Dir}, nil
}

func splitNonEmpty(p string) []string {
	if p == "" {
		return nil
	}
	return strings.Split(p, "/")
}

// cachedTree memoizes Lstat of another tree for one pass (a guard walk, an AffectedSites call): the walk
// resolves the same folders many times.
type cachedTree struct {
	FS
	stats map[string]Entry
}

// Cached wraps t in a FS that remembers every Lstat answer, for one pass over a tree that does not change
// meanwhile (a guard walk, an AffectedSites call): such a walk resolves the same folders many times. Wrapping an
// already cached FS returns it as is. The result is not safe for concurrent use.
func Cached(t FS) FS {
	if _, ok := t.(*cachedTree); ok {
		return t
	}
	return &cachedTree{FS: t, stats: map[string]Entry{}}
}

func (c *cachedTree) Lstat(p string) (Entry, error) {
	if e, ok := c.stats[p]; ok {
		return e, nil
	}
	e, err := c.FS.Lstat(p)
	if err == nil {
		c.stats[p] = e
	}
	return e, err
}
