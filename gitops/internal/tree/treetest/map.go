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

// Package treetest holds an in-memory tree.FS for tests.
package treetest

import (
	"fmt"
	"path"
	"sort"
	"strings"

	"github.com/siteops/siteops/gitops/internal/tree"
)

// Map is an in-memory FS for pure tests: files by path, symlinks by path → target. Folders are
// implied by the paths below them. Reads records every path read.
type Map struct {
	Files    map[string]string
	Symlinks map[string]string
	Reads    []string
}

// Lstat describes p: a file, a symlink, a folder when some path lies below it, else Missing.
func (m *Map) Lstat(p string) (tree.Entry, error) {
	if p == "" {
		return tree.Entry{Kind: tree.Dir}, nil
	}
	if c, ok := m.Files[p]; ok {
		return tree.Entry{Kind: tree.File, Size: int64(len(c))}, nil
	}
	if t, ok := m.Symlinks[p]; ok {
		return tree.Entry{Kind: tree.Symlink, Target: t}, nil
	}
	for _, all := range []map[string]string{m.Files, m.Symlinks} {
		for q := range all {
			if strings.HasPrefix(q, p+"/") {
				return tree.Entry{Kind: tree.Dir}, nil
			}
		}
	}
	return tree.Entry{Kind: tree.Missing}, nil
}

// ReadFile returns the contents of file p and records p in Reads; anything but a file is an error.
func (m *Map) ReadFile(p string) ([]byte, error) {
	m.Reads = append(m.Reads, p)
	c, ok := m.Files[p]
	if !ok {
		return nil, fmt.Errorf("%s: not a file", p)
	}
	return []byte(c), nil
}

// ReadDir lists the names directly in folder p, files and symlinks alike, sorted.
func (m *Map) ReadDir(p string) ([]string, error) {
	set := map[string]bool{}
	prefix := p + "/"
	if p == "" {
		prefix = ""
	}
	for _, all := range []map[string]string{m.Files, m.Symlinks} {
		for q := range all {
			if rest, ok := strings.CutPrefix(q, prefix); ok {
				first, _, _ := strings.Cut(rest, "/")
				set[first] = true
			}
		}
	}
	names := make([]string, 0, len(set))
	for n := range set {
		names = append(names, n)
	}
	sort.Strings(names)
	return names, nil
}

// InsideRoot reports whether every path is a clean relative path inside the root.
func InsideRoot(paths []string) bool {
	for _, p := range paths {
		if p == "" || path.IsAbs(p) || path.Clean(p) != p || tree.EscapesRoot(p) {
			return false
		}
	}
	return true
}
