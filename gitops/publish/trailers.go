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

package publish

import "strings"

// ParseTrailers reads the "Key: Value" lines of a commit message's last paragraph, in order; a key may
// repeat (Siteops-Policy is written once per site).
func ParseTrailers(msg string) []Trailer {
	paras := strings.Split(strings.TrimSpace(msg), "\n\n")
	var out []Trailer
	for _, line := range strings.Split(paras[len(paras)-1], "\n") {
		if k, v, ok := strings.Cut(line, ":"); ok && k != "" && !strings.ContainsAny(k, " \t") {
			out = append(out, Trailer{Key: k, Value: strings.TrimSpace(v)})
		}
	}
	return out
}
