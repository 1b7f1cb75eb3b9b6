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

package source

import (
	"testing"

	. "github.com/onsi/gomega"

	"github.com/siteops/siteops/gitops/internal/permanent"
)

func TestValidateURL(t *testing.T) {
	for url, want := range map[string]string{
		"https://example.com/org/repo.git": "",
		"http://127.0.0.1:8080/repo.git":   "",
		"ssh://git@example.com/org/repo":   "",
		"git@example.com:org/repo.git":     "",
		"file:///srv/git/repo.git":         "",
		"":                                 "empty",
		"git://example.com/repo":           "unsupported git URL scheme",
		"ftp://example.com/repo":           "unsupported git URL scheme",
		"/srv/git/repo.git":                "unsupported git URL scheme",
		"https:///repo":                    "no host",
		"https://user:token@example.com/r": "carries a password",
	} {
		g := NewWithT(t)
		err := ValidateURL(url)
		if want == "" {
			g.Expect(err).NotTo(HaveOccurred(), url)
			continue
		}
		g.Expect(err).To(MatchError(ContainSubstring(want)), url)
		g.Expect(permanent.Is(err)).To(BeTrue())
		g.Expect(err.Error()).NotTo(ContainSubstring("token"))
	}
}

func TestRedactRemovesSecrets(t *testing.T) {
	g := NewWithT(t)
	a := &Auth{Username: "git", Password: "tok-123456"}
	g.Expect(redact("GET https://git:tok-123456@host/x failed: tok-123456",
		a)).To(Equal("GET https://***@host/x failed: ***"))
	g.Expect(redact("https://u:anything@h/r")).To(Equal("https://***@h/r"))
	g.Expect(redact("https://tok-in-user-position@h/r")).To(Equal("https://***@h/r"))
}
