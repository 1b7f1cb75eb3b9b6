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
	"errors"
	"fmt"
	"regexp"
	"strings"
	"unicode"
)

// Limits of the fields kept from a push payload.
const (
	maxRefLen = 1024
	maxURLLen = 2048
)

// shaPattern matches a full SHA-1 or SHA-256 commit id.
var shaPattern = regexp.MustCompile(`^([0-9a-f]{40}|[0-9a-f]{64})$`)

// PushEvent is what the receiver needs from a push webhook payload of GitHub, GitLab, Gitea or Forgejo.
type PushEvent struct {
	// Ref is the full pushed ref, e.g. refs/heads/main or refs/tags/v1.
	Ref string
	// After is the new commit SHA of Ref (lower case), or "" when the payload has none.
	After string
	// Deleted is true when the push deleted Ref.
	Deleted bool
	// RepositoryURLs are the clone and web URLs the payload names, without duplicates.
	RepositoryURLs []string
}

// pushPayload is the union of the push payload fields of the supported hosts.
type pushPayload struct {
	Ref         string      `json:"ref"`
	After       string      `json:"after"`
	CheckoutSHA string      `json:"checkout_sha"` // GitLab
	Deleted     bool        `json:"deleted"`      // GitHub
	Repository  payloadRepo `json:"repository"`
	Project     payloadRepo `json:"project"` // GitLab
}

type payloadRepo struct {
	CloneURL   string `json:"clone_url"`
	HTMLURL    string `json:"html_url"`
	SSHURL     string `json:"ssh_url"`
	GitHTTPURL string `json:"git_http_url"`
	GitSSHURL  string `json:"git_ssh_url"`
	WebURL     string `json:"web_url"`
}

// ParsePushEvent reads a push payload. It fails on anything but a JSON object with a `refs/…` ref, a
// commit SHA that is not a full hex id, and overlong or control-character-bearing fields.
func ParsePushEvent(body []byte) (PushEvent, error) {
	var p pushPayload
	if err := json.Unmarshal(body, &p); err != nil {
		return PushEvent{}, fmt.Errorf("decoding push payload: %w", err)
	}
	if err := checkRef(p.Ref); err != nil {
		return PushEvent{}, err
	}
	after := strings.ToLower(p.After)
	if after == "" {
		after = strings.ToLower(p.CheckoutSHA)
	}
	if after != "" && !shaPattern.MatchString(after) {
		return PushEvent{}, errors.New("push payload: `after` is not a full commit SHA")
	}
	ev := PushEvent{Ref: p.Ref, After: after, Deleted: p.Deleted || (after != "" && strings.Trim(after, "0") == "")}
	seen := map[string]bool{}
	for _, repo := range []payloadRepo{p.Repository, p.Project} {
		for _, u := range []string{repo.CloneURL, repo.GitHTTPURL, repo.SSHURL, repo.GitSSHURL, repo.HTMLURL, repo.WebURL} {
			if u == "" || seen[u] {
				continue
			}
			if len(u) > maxURLLen || hasControl(u) {
				return PushEvent{}, errors.New("push payload: repository URL is too long or has control characters")
			}
			seen[u] = true
			ev.RepositoryURLs = append(ev.RepositoryURLs, u)
		}
	}
	return ev, nil
}

// checkRef accepts a full ref name of bounded length without control characters or spaces.
func checkRef(ref string) error {
	switch {
	case !strings.HasPrefix(ref, "refs/") || len(ref) == len("refs/"):
		return errors.New("push payload: `ref` is missing or not a full ref (refs/…)")
	case len(ref) > maxRefLen:
		return errors.New("push payload: `ref` is too long")
	case hasControl(ref) || strings.ContainsAny(ref, " \t"):
		return errors.New("push payload: `ref` has control characters or spaces")
	}
	return nil
}

func hasControl(s string) bool {
	return strings.ContainsFunc(s, func(r rune) bool { return unicode.IsControl(r) || r == unicode.ReplacementChar })
}

// Affects reports whether the push can change what a SiteSync following ref (a branch, tag, commit SHA, or
// "" for the default branch) renders. Only a push of a different branch or tag than a named ref is ignored.
func (e PushEvent) Affects(ref string) bool {
	if ref == "" || shaPattern.MatchString(strings.ToLower(ref)) {
		return true
	}
	if strings.HasPrefix(ref, "refs/") {
		return e.Ref == ref
	}
	name, ok := strings.CutPrefix(e.Ref, "refs/heads/")
	if !ok {
		name, ok = strings.CutPrefix(e.Ref, "refs/tags/")
	}
	return !ok || name == ref
}
