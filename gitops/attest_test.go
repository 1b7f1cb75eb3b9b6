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

package gitops

import "testing"

// TestWithoutUserinfoDropsCredentialsFromTheRecordedSourceURL: the provenance records the source URL without a
// password or an HTTP(S) user (a token may stand there); an SSH user name is not a secret and stays.
func TestWithoutUserinfoDropsCredentialsFromTheRecordedSourceURL(t *testing.T) {
	for in, want := range map[string]string{
		"https://x-token:s3cret@git.example.com/config.git": "https://git.example.com/config.git",
		"https://ghp_tokenAsUser@git.example.com/config":    "https://git.example.com/config",
		"ssh://git@git.example.com/config.git":              "ssh://git@git.example.com/config.git",
		"ssh://git:pw@git.example.com/config.git":           "ssh://git.example.com/config.git",
		"git@git.example.com:platform/config.git":           "git@git.example.com:platform/config.git",
		"http://127.0.0.1:8080/config.git":                  "http://127.0.0.1:8080/config.git",
	} {
		if got := withoutUserinfo(in); got != want {
			t.Errorf("withoutUserinfo(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestNoSiteFolderMayHoldTheAttestations: a path template that puts a site under .siteops is refused.
func TestNoSiteFolderMayHoldTheAttestations(t *testing.T) {
	for _, tc := range []struct{ template, site string }{
		{"{{.Site}}", ".siteops"}, {".siteops/{{.Site}}", "dev"}, {".siteops", "dev"},
	} {
		if p, err := SitePath(tc.template, tc.site); err == nil {
			t.Errorf("SitePath(%q, %q) = %q, want an error", tc.template, tc.site, p)
		}
	}
	if _, err := SitePath("clusters/.siteops-{{.Site}}", "dev"); err != nil {
		t.Errorf("a folder elsewhere is allowed: %v", err)
	}
}
