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
	"crypto/hmac"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/hex"
	"errors"
	"net/http"
	"strings"
)

// provider is the Git host that sent a webhook, told apart by its signature header.
type provider string

const (
	providerGitHub  provider = "github"
	providerGitLab  provider = "gitlab"
	providerGitea   provider = "gitea"
	providerForgejo provider = "forgejo"
)

// Webhook headers of the supported Git hosts.
const (
	headerGitHubSignature  = "X-Hub-Signature-256"
	headerGitLabToken      = "X-Gitlab-Token"
	headerGiteaSignature   = "X-Gitea-Signature"
	headerForgejoSignature = "X-Forgejo-Signature"
)

// errBadSignature is the one error every failed verification returns, so a caller learns nothing about why.
var errBadSignature = errors.New("missing or invalid webhook signature")

// verifySignature checks the request against token and says which host sent it. Forgejo and Gitea send
// their own header besides GitHub's, so theirs are checked first; when a host's header is present, only that
// header decides. HMACs are compared with hmac.Equal and the GitLab token in constant time.
func verifySignature(h http.Header, body, token []byte) (provider, error) {
	if len(token) == 0 {
		return "", errBadSignature
	}
	switch {
	case h.Get(headerForgejoSignature) != "":
		return providerForgejo, verifyHMAC(h.Get(headerForgejoSignature), "", body, token)
	case h.Get(headerGiteaSignature) != "":
		return providerGitea, verifyHMAC(h.Get(headerGiteaSignature), "", body, token)
	case h.Get(headerGitHubSignature) != "":
		return providerGitHub, verifyHMAC(h.Get(headerGitHubSignature), "sha256=", body, token)
	case h.Get(headerGitLabToken) != "":
		return providerGitLab, verifyToken(h.Get(headerGitLabToken), token)
	default:
		return "", errBadSignature
	}
}

// verifyHMAC checks a hex HMAC-SHA256 of body, after a required prefix.
func verifyHMAC(header, prefix string, body, token []byte) error {
	hexSig, ok := strings.CutPrefix(strings.TrimSpace(header), prefix)
	if !ok {
		return errBadSignature
	}
	got, err := hex.DecodeString(hexSig)
	if err != nil || len(got) != sha256.Size {
		return errBadSignature
	}
	mac := hmac.New(sha256.New, token)
	mac.Write(body)
	if !hmac.Equal(got, mac.Sum(nil)) {
		return errBadSignature
	}
	return nil
}

// verifyToken compares a shared token in constant time (hashing both sides first so their lengths do not
// leak either).
func verifyToken(header string, token []byte) error {
	got := sha256.Sum256([]byte(header))
	want := sha256.Sum256(token)
	if subtle.ConstantTimeCompare(got[:], want[:]) != 1 {
		return errBadSignature
	}
	return nil
}

// deliveryID is the sender's unique id of this delivery, for replay detection.
func deliveryID(p provider, h http.Header) string {
	var headers []string
	switch p {
	case providerGitHub:
		headers = []string{"X-GitHub-Delivery"}
	case providerGitLab:
		headers = []string{"X-Gitlab-Event-UUID", "X-Gitlab-Webhook-UUID"}
	case providerGitea:
		headers = []string{"X-Gitea-Delivery", "X-GitHub-Delivery"}
	case providerForgejo:
		headers = []string{"X-Forgejo-Delivery", "X-Gitea-Delivery", "X-GitHub-Delivery"}
	}
	for _, name := range headers {
		if v := strings.TrimSpace(h.Get(name)); v != "" {
			return v
		}
	}
	return ""
}

// eventType is the sender's event name ("push", "Push Hook", "ping"…), or "" when it sent none.
func eventType(p provider, h http.Header) string {
	switch p {
	case providerGitHub:
		return h.Get("X-GitHub-Event")
	case providerGitLab:
		return h.Get("X-Gitlab-Event")
	case providerGitea:
		return h.Get("X-Gitea-Event")
	case providerForgejo:
		if v := h.Get("X-Forgejo-Event"); v != "" {
			return v
		}
		return h.Get("X-Gitea-Event")
	}
	return ""
}
