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

package helmchart

import (
	"bytes"
	"fmt"
	"io/fs"
	"path"
	"strings"
	"time"

	"helm.sh/helm/v4/pkg/ignore"
)

// loadable keeps the chart files Helm's directory loader would load: those its .helmignore (and Helm's default
// rule, no dotfiles in templates/) leave, each folder's rules applied to everything below it, and the UTF-8 byte
// order mark trimmed, as `helm template <folder>` reads a chart.
func loadable(files map[string][]byte) (map[string][]byte, error) {
	rules := ignore.Empty()
	if b, ok := files[ignore.HelmIgnore]; ok {
		r, err := ignore.Parse(bytes.NewReader(b))
		if err != nil {
			return nil, fmt.Errorf("%s: %w", ignore.HelmIgnore, err)
		}
		rules = r
	}
	rules.AddDefaults()
	out := make(map[string][]byte, len(files))
	for name, b := range files {
		if ignoredPath(rules, name) {
			continue
		}
		out[name] = bytes.TrimPrefix(b, []byte{0xEF, 0xBB, 0xBF})
	}
	return out, nil
}

// ignoredPath reports whether name, or one of the folders on its way, is ignored.
func ignoredPath(rules *ignore.Rules, name string) bool {
	parts := strings.Split(name, "/")
	for i := 1; i < len(parts); i++ {
		if rules.Ignore(path.Join(parts[:i]...), entryInfo{name: parts[i-1], dir: true}) {
			return true
		}
	}
	return rules.Ignore(name, entryInfo{name: parts[len(parts)-1]})
}

// entryInfo is the fs.FileInfo Helm's ignore rules ask of a path: its name and whether it is a folder.
type entryInfo struct {
	name string
	dir  bool
}

func (e entryInfo) Name() string { return e.name }
func (e entryInfo) Size() int64  { return 0 }
func (e entryInfo) Mode() fs.FileMode {
	if e.dir {
		return fs.ModeDir
	}
	return 0
}
func (e entryInfo) ModTime() time.Time { return time.Time{} }
func (e entryInfo) IsDir() bool        { return e.dir }
func (e entryInfo) Sys() any           { return nil }
