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

package guard

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"sort"
)

// digestFiles hashes paths and bytes, sorted, with the render version.
func digestFiles(files map[string][]byte) string {
	paths := make([]string, 0, len(files))
	for p := range files {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	h := sha256.New()
	// Writes to a hash.Hash never fail.
	_, _ = fmt.Fprintf(h, "%s\x00", digestSalt)
	for _, p := range paths {
		_, _ = fmt.Fprintf(h, "%s\x00%d\x00", p, len(files[p]))
		h.Write(files[p])
	}
	return "sha256:" + hex.EncodeToString(h.Sum(nil))
}

// abbreviate shortens long (inline) values for messages.
func abbreviate(s string) string {
	const maxLen = 100
	if len(s) <= maxLen {
		return s
	}
	return s[:maxLen] + "…"
}

// DisplayDir is how messages name folder dir of a checkout: the root ("") shows as ".", so that an error never
// quotes an empty name.
func DisplayDir(dir string) string {
	if dir == "" {
		return "."
	}
	return dir
}
