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

package helmvalues

import (
	"errors"
	"strings"
)

// SplitPath splits an override key at its dots into the keys of nested maps; `\.` is a literal dot and `\\`
// a literal backslash. An empty key anywhere (`a..b`, a leading or trailing dot) is an error.
func SplitPath(key string) ([]string, error) {
	var parts []string
	var cur strings.Builder
	for i := 0; i < len(key); i++ {
		switch ch := key[i]; {
		case ch == '\\' && i+1 < len(key) && (key[i+1] == '.' || key[i+1] == '\\'):
			cur.WriteByte(key[i+1])
			i++
		case ch == '.':
			parts = append(parts, cur.String())
			cur.Reset()
		default:
			cur.WriteByte(ch)
		}
	}
	parts = append(parts, cur.String())
	for _, p := range parts {
		if p == "" {
			return nil, errors.New("a dotted path has an empty key")
		}
	}
	return parts, nil
}
