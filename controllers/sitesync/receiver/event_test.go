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

package receiver

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	. "github.com/onsi/gomega"
)

const (
	shaA = "0123456789abcdef0123456789abcdef01234567"
	shaB = "89abcdef0123456789abcdef0123456789abcdef"
)

func TestParsePushEvent(t *testing.T) {
	cases := []struct {
		name    string
		body    string
		want    PushEvent
		wantErr string
	}{
		{"github push", `{"ref":"refs/heads/main","before":"` + shaB + `","after":"` + strings.ToUpper(shaA) + `",
			"repository":{"clone_url":"https://github.com/o/r.git","html_url":"https://github.com/o/r",
			"ssh_url":"git@github.com:o/r.git"}}`,
			PushEvent{Ref: "refs/heads/main", After: shaA, RepositoryURLs: []string{
				"https://github.com/o/r.git", "git@github.com:o/r.git", "https://github.com/o/r"}}, ""},
		{"gitlab push uses project urls", `{"object_kind":"push","ref":"refs/heads/dev","checkout_sha":"` + shaA + `",
			"project":{"git_http_url":"https://gitlab.com/o/r.git","git_ssh_url":"git@gitlab.com:o/r.git",
			"web_url":"https://gitlab.com/o/r"}}`,
			PushEvent{Ref: "refs/heads/dev", After: shaA, RepositoryURLs: []string{
				"https://gitlab.com/o/r.git", "git@gitlab.com:o/r.git", "https://gitlab.com/o/r"}}, ""},
		{"duplicate urls are kept once",
			`{"ref":"refs/tags/v1","repository":{"clone_url":"u","html_url":"u"},"project":{"web_url":"u"}}`,
			PushEvent{Ref: "refs/tags/v1", RepositoryURLs: []string{"u"}}, ""},
		{"branch deletion", `{"ref":"refs/heads/x","after":"0000000000000000000000000000000000000000"}`,
			PushEvent{Ref: "refs/heads/x", After: "0000000000000000000000000000000000000000", Deleted: true}, ""},
		{"sha256 repository", `{"ref":"refs/heads/main","after":"` + shaA + shaA[:24] + `"}`,
			PushEvent{Ref: "refs/heads/main", After: shaA + shaA[:24]}, ""},
		{"not json", `ref=refs/heads/main`, PushEvent{}, "decoding"},
		{"json array", `[1,2]`, PushEvent{}, "decoding"},
		{"missing ref", `{"after":"` + shaA + `"}`, PushEvent{}, "ref"},
		{"short ref", `{"ref":"main"}`, PushEvent{}, "ref"},
		{"ref with newline", `{"ref":"refs/heads/ma\nin"}`, PushEvent{}, "control"},
		{"ref with space", `{"ref":"refs/heads/ma in"}`, PushEvent{}, "control"},
		{"short sha", `{"ref":"refs/heads/main","after":"abc123"}`, PushEvent{}, "SHA"},
		{"non hex sha", `{"ref":"refs/heads/main","after":"` + strings.Repeat("g", 40) + `"}`, PushEvent{}, "SHA"},
		{"url with control char", `{"ref":"refs/heads/main","repository":{"clone_url":"https://x\u0007"}}`, PushEvent{},
			"control"},
		{"overlong ref", `{"ref":"refs/heads/` + strings.Repeat("a", maxRefLen) + `"}`, PushEvent{}, "too long"},
		{"wrong field type", `{"ref":42}`, PushEvent{}, "decoding"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			g := NewWithT(t)
			got, err := ParsePushEvent([]byte(tc.body))
			if tc.wantErr != "" {
				g.Expect(err).To(MatchError(ContainSubstring(tc.wantErr)))
				return
			}
			g.Expect(err).NotTo(HaveOccurred())
			g.Expect(got).To(Equal(tc.want))
		})
	}
}

func TestPushEventAffects(t *testing.T) {
	cases := []struct {
		pushed, followed string
		want             bool
	}{
		{"refs/heads/main", "", true},
		{"refs/heads/main", "main", true},
		{"refs/heads/dev", "main", false},
		{"refs/tags/v1", "v1", true},
		{"refs/tags/v1", "v2", false},
		{"refs/heads/main", "refs/heads/main", true},
		{"refs/heads/main", "refs/heads/dev", false},
		{"refs/heads/dev", shaA, true},
		{"refs/merge-requests/1/head", "main", true},
	}
	for _, tc := range cases {
		t.Run(tc.pushed+" vs "+tc.followed, func(t *testing.T) {
			NewWithT(t).Expect(PushEvent{Ref: tc.pushed}.Affects(tc.followed)).To(Equal(tc.want))
		})
	}
}

// FuzzParsePushEvent checks that any payload either fails cleanly or yields an event within the parser's
// promises, and that a parsed event survives a round trip through a GitHub-shaped payload.
func FuzzParsePushEvent(f *testing.F) {
	seeds, _ := filepath.Glob(filepath.Join("testdata", "payloads", "*.json"))
	for _, path := range seeds {
		body, err := os.ReadFile(path)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(body)
	}
	f.Add([]byte(`{"ref":"refs/heads/main","after":"` + shaA + `"}`))
	f.Fuzz(func(t *testing.T, body []byte) {
		ev, err := ParsePushEvent(body)
		if err != nil {
			if ev.Ref != "" || ev.After != "" || ev.RepositoryURLs != nil {
				t.Fatalf("a failed parse returned data: %+v", ev)
			}
			return
		}
		if checkRef(ev.Ref) != nil {
			t.Fatalf("accepted a bad ref %q", ev.Ref)
		}
		if ev.After != "" && !shaPattern.MatchString(ev.After) {
			t.Fatalf("accepted a bad sha %q", ev.After)
		}
		seen := map[string]bool{}
		for _, u := range ev.RepositoryURLs {
			if u == "" || len(u) > maxURLLen || hasControl(u) || seen[u] {
				t.Fatalf("bad or duplicate repository URL %q", u)
			}
			seen[u] = true
		}
		again, err := json.Marshal(map[string]any{"ref": ev.Ref, "after": ev.After, "deleted": ev.Deleted,
			"repository": map[string]string{"clone_url": first(ev.RepositoryURLs)}})
		if err != nil {
			t.Fatal(err)
		}
		round, err := ParsePushEvent(again)
		if err != nil {
			t.Fatalf("re-parsing a parsed event failed: %v", err)
		}
		if round.Ref != ev.Ref || round.After != ev.After || round.Deleted != ev.Deleted ||
			first(round.RepositoryURLs) != first(ev.RepositoryURLs) {
			t.Fatalf("round trip changed the event: %+v -> %+v", ev, round)
		}
	})
}

func first(s []string) string {
	if len(s) == 0 {
		return ""
	}
	return s[0]
}
