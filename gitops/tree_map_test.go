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
	"sort"
	"strings"
)

// mapTree is an in-memory fileTree for pure tests: files by path, symlinks by path → target. Folders are
// implied by the paths below them. reads records every path read.
type mapTree struct {
	files    map[string]string
	symlinks map[string]string
	reads    []string
}

func (m *mapTree) lstat(p string) (entry, error) {
	if p == "" {
		return entry{kind: kindDir}, nil
	}
	if c, ok := m.files[p]; ok {
		return entry{kind: kindFile, size: int64(len(c))}, nil
	}
	if t, ok := m.symlinks[p]; ok {
		return entry{kind: kindSymlink, target: t}, nil
	}
	for _, all := range []map[string]string{m.files, m.symlinks} {
		for q := range all {
			if strings.HasPrefix(q, p+"/") {
				return entry{kind: kindDir}, nil
			}
		}
	}
	return entry{kind: kindMissing}, nil
}

func (m *mapTree) readFile(p string) ([]byte, error) {
	m.reads = append(m.reads, p)
	c, ok := m.files[p]
	if !ok {
		return nil, fmt.Errorf("%s: not a file", p)
	}
	return []byte(c), nil
}

func (m *mapTree) readDir(p string) ([]string, error) {
	set := map[string]bool{}
	prefix := p + "/"
	if p == "" {
		prefix = ""
	}
	for _, all := range []map[string]string{m.files, m.symlinks} {
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

// insideRoot reports whether every path is a clean relative path inside the root.
func insideRoot(paths []string) bool {
	for _, p := range paths {
		if p == "" || path.IsAbs(p) || path.Clean(p) != p || escapesRoot(p) {
			return false
		}
	}
	return true
}
