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
	"encoding/hex"
	"net/http"
	"testing"

	. "github.com/onsi/gomega"
)

func hmacHex(key, body []byte) string {
	mac := hmac.New(sha256.New, key)
	mac.Write(body)
	return hex.EncodeToString(mac.Sum(nil))
}

func TestVerifySignature(t *testing.T) {
	token := []byte("webhook-token-123")
	body := []byte(`{"ref":"refs/heads/main"}`)
	good := hmacHex(token, body)
	wrongKey := hmacHex([]byte("other-token"), body)
	cases := []struct {
		name     string
		headers  map[string]string
		token    []byte
		want     provider
		wantFail bool
	}{
		{"github valid", map[string]string{headerGitHubSignature: "sha256=" + good}, token, providerGitHub, false},
		{"github wrong key", map[string]string{headerGitHubSignature: "sha256=" + wrongKey}, token, providerGitHub, true},
		{"github missing prefix", map[string]string{headerGitHubSignature: good}, token, providerGitHub, true},
		{"github sha1 prefix", map[string]string{headerGitHubSignature: "sha1=" + good}, token, providerGitHub, true},
		{"github not hex", map[string]string{headerGitHubSignature: "sha256=zz"}, token, providerGitHub, true},
		{"github truncated", map[string]string{headerGitHubSignature: "sha256=" + good[:40]}, token, providerGitHub, true},
		{"gitea valid", map[string]string{headerGiteaSignature: good}, token, providerGitea, false},
		{"gitea wins over github header",
			map[string]string{headerGiteaSignature: good, headerGitHubSignature: "sha256=" + wrongKey}, token,
			providerGitea, false},
		{"gitea bad", map[string]string{headerGiteaSignature: wrongKey, headerGitHubSignature: "sha256=" + good}, token,
			providerGitea, true},
		{"forgejo valid", map[string]string{headerForgejoSignature: good, headerGiteaSignature: good}, token,
			providerForgejo, false},
		{"forgejo bad", map[string]string{headerForgejoSignature: wrongKey}, token, providerForgejo, true},
		{"gitlab token", map[string]string{headerGitLabToken: string(token)}, token, providerGitLab, false},
		{"gitlab wrong token", map[string]string{headerGitLabToken: "webhook-token-124"}, token, providerGitLab, true},
		{"gitlab token prefix only", map[string]string{headerGitLabToken: "webhook"}, token, providerGitLab, true},
		{"no signature", map[string]string{}, token, "", true},
		{"empty secret token never verifies", map[string]string{headerGitHubSignature: "sha256=" + hmacHex(nil, body)}, nil,
			"", true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			g := NewWithT(t)
			h := http.Header{}
			for k, v := range tc.headers {
				h.Set(k, v)
			}
			got, err := verifySignature(h, body, tc.token)
			if tc.wantFail {
				g.Expect(err).To(MatchError(errBadSignature))
				return
			}
			g.Expect(err).NotTo(HaveOccurred())
			g.Expect(got).To(Equal(tc.want))
		})
	}
}

func TestVerifySignatureCoversTheBody(t *testing.T) {
	g := NewWithT(t)
	token := []byte("webhook-token-123")
	h := http.Header{}
	h.Set(headerGitHubSignature, "sha256="+hmacHex(token, []byte(`{"ref":"refs/heads/main"}`)))
	_, err := verifySignature(h, []byte(`{"ref":"refs/heads/evil"}`), token)
	g.Expect(err).To(MatchError(errBadSignature))
}

func TestDeliveryIDAndEventHeaders(t *testing.T) {
	cases := []struct {
		name      string
		p         provider
		headers   map[string]string
		wantID    string
		wantEvent string
	}{
		{"github", providerGitHub, map[string]string{"X-GitHub-Delivery": "d1", "X-GitHub-Event": "push"}, "d1", "push"},
		{"gitlab event uuid", providerGitLab, map[string]string{"X-Gitlab-Event-UUID": "u1", "X-Gitlab-Event": "Push Hook"},
			"u1", "Push Hook"},
		{"gitlab webhook uuid fallback", providerGitLab, map[string]string{"X-Gitlab-Webhook-UUID": "w1"}, "w1", ""},
		{"gitea", providerGitea, map[string]string{"X-Gitea-Delivery": "g1", "X-GitHub-Delivery": "other",
			"X-Gitea-Event": "push"}, "g1", "push"},
		{"forgejo falls back to gitea headers", providerForgejo,
			map[string]string{"X-Gitea-Delivery": "f1", "X-Gitea-Event": "push"}, "f1", "push"},
		{"github ignores gitlab id", providerGitHub, map[string]string{"X-Gitlab-Event-UUID": "u1"}, "", ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			g := NewWithT(t)
			h := http.Header{}
			for k, v := range tc.headers {
				h.Set(k, v)
			}
			g.Expect(deliveryID(tc.p, h)).To(Equal(tc.wantID))
			g.Expect(eventType(tc.p, h)).To(Equal(tc.wantEvent))
		})
	}
}
