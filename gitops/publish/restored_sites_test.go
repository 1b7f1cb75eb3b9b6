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

import (
	"slices"
	"strings"
	"testing"
)

// TestRestoredSitesReadsTheRevertOfEveryMessage: RestoredSites reads back the sites gatedMessage names as
// restored, with or without rendered and removed sites beside them, and none from a plain render.
func TestRestoredSitesReadsTheRevertOfEveryMessage(t *testing.T) {
	src := strings.Repeat("a", 40)
	cases := []struct {
		name             string
		in               Input
		changed, removed []string
		restored         []string
	}{
		{"render only", Input{SourceRev: src}, []string{"a", "b"}, nil, nil},
		{"revert only", Input{SourceRev: src, Restored: map[string]string{"a": src, "c": src}}, []string{"a", "c"}, nil,
			[]string{"a", "c"}},
		{"render, remove and revert", Input{SourceRev: src, Restored: map[string]string{"b": src}},
			[]string{"a", "b"}, []string{"old"}, []string{"b"}},
		{"revert with a trailer", Input{SourceRev: src, Restored: map[string]string{"a": src},
			Trailers: []Trailer{{TrailerRevertOf, strings.Repeat("b", 40)}}}, []string{"a"}, nil, []string{"a"}},
	}
	for _, c := range cases {
		got := RestoredSites(gatedMessage(c.in, c.changed, c.removed))
		if !slices.Equal(got, c.restored) {
			t.Errorf("%s: restored %q, want %q", c.name, got, c.restored)
		}
	}
}
