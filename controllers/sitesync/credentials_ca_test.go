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

package sitesync

import (
	"testing"

	. "github.com/onsi/gomega"

	"github.com/siteops/siteops/gitops"
	"github.com/siteops/siteops/test/gitserver"
)

func TestAuthFromSecretReadsThePrivateCA(t *testing.T) {
	ca := gitserver.NewCA(t).CertPEM
	const pass = "pa55-w0rd-value"
	cases := []struct {
		name    string
		url     string
		data    map[string][]byte
		want    *gitops.Auth
		wantErr string
	}{
		{"basic auth and a CA", "https://git.example/r.git",
			map[string][]byte{"username": []byte("alice"), "password": []byte(pass), "ca.crt": ca},
			&gitops.Auth{Username: "alice", Password: pass, CABundle: ca}, ""},
		{"a CA alone is anonymous access over HTTPS", "https://git.example/r.git",
			map[string][]byte{"ca.crt": ca}, &gitops.Auth{CABundle: ca}, ""},
		{"a CA does not excuse a half credential", "https://git.example/r.git",
			map[string][]byte{"username": []byte("alice"), "ca.crt": ca}, nil, `"password"`},
		{"a ca.crt that is not PEM", "https://git.example/r.git",
			map[string][]byte{"token": []byte(pass), "ca.crt": []byte("not a certificate")}, nil,
			`key "ca.crt": CA bundle holds no PEM certificate`},
		{"a private key in ca.crt", "https://git.example/r.git",
			map[string][]byte{"ca.crt": []byte("-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n")}, nil,
			`PEM block of type "PRIVATE KEY"`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			g := NewWithT(t)
			got, err := authFromSecret(tc.url, tc.data)
			if tc.wantErr != "" {
				g.Expect(err).To(MatchError(ContainSubstring(tc.wantErr)))
				g.Expect(err.Error()).NotTo(ContainSubstring(pass))
				g.Expect(err.Error()).NotTo(ContainSubstring("AAAA"))
				return
			}
			g.Expect(err).NotTo(HaveOccurred())
			g.Expect(got).To(Equal(tc.want))
		})
	}
}
