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

package provenance

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"path"
	"slices"
	"strings"
)

// Subjects are the statement's subjects for the files of folder: one per file, named by its path on the
// rendered branch (folder/rel) with the sha256 of its bytes, sorted by name. A site's output is exactly this
// list: a file changed, added or removed gives another one.
func Subjects(folder string, files map[string][]byte) []ResourceDescriptor {
	out := make([]ResourceDescriptor, 0, len(files))
	for rel, b := range files {
		sum := sha256.Sum256(b)
		out = append(out, ResourceDescriptor{Name: path.Join(folder, rel),
			Digest: map[string]string{"sha256": hex.EncodeToString(sum[:])}})
	}
	slices.SortFunc(out, func(a, b ResourceDescriptor) int { return strings.Compare(a.Name, b.Name) })
	return out
}

// SetDigest is the sha256 digest (hex) of a set of files: of the lines "<sha256 of the file, hex>  <path>\n",
// sorted by path, as Go's dirhash (h1) hashes a module's files.
func SetDigest(files map[string][]byte) string {
	paths := make([]string, 0, len(files))
	for p := range files {
		paths = append(paths, p)
	}
	slices.Sort(paths)
	h := sha256.New()
	for _, p := range paths {
		sum := sha256.Sum256(files[p])
		// Writes to a hash.Hash never fail.
		_, _ = fmt.Fprintf(h, "%x  %s\n", sum, p)
	}
	return hex.EncodeToString(h.Sum(nil))
}
