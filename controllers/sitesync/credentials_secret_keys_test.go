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
	"github.com/siteops/siteops/gitops/source"
)

func TestAuthFromSecretKeys(t *testing.T) {
	const (
		pass  = "pa55-w0rd-value"
		token = "tok-3n-value"
		key   = "-----BEGIN OPENSSH PRIVATE KEY-----\nAAAAB3NzaC1yc2EAAAADAQABAAABAQ\n-----END OPENSSH PRIVATE KEY-----\n"
		hosts = "github.com ssh-ed25519 AAAAC3Nza"
	)
	cases := []struct {
		name    string
		url     string
		data    map[string]string
		want    *gitops.Auth
		wantErr string // substring naming the missing key
	}{
		{"basic auth", "https://git.example/r.git", map[string]string{"username": "alice", "password": pass},
			&gitops.Auth{Username: "alice", Password: pass}, ""},
		{"token without username uses git", "https://git.example/r.git", map[string]string{"token": token},
			&gitops.Auth{Username: "git", Password: token}, ""},
		{"token with username", "http://git.example/r.git", map[string]string{"username": "bot", "token": token},
			&gitops.Auth{Username: "bot", Password: token}, ""},
		{"username without password", "https://git.example/r.git", map[string]string{"username": "alice"},
			nil, `"password"`},
		{"password without username", "https://git.example/r.git", map[string]string{"password": pass},
			nil, `"username"`},
		{"empty password counts as missing", "https://git.example/r.git",
			map[string]string{"username": "alice", "password": ""},
			nil, `"password"`},
		{"no known keys for https", "https://git.example/r.git", map[string]string{"other": "x"},
			nil, `"username"`},
		{"ssh key and known hosts", "ssh://git@git.example/r.git", map[string]string{"identity": key, "known_hosts": hosts},
			&gitops.Auth{SSHPrivateKey: []byte(key), SSHKnownHosts: []byte(hosts)}, ""},
		{"scp form needs identity", "git@git.example:org/r.git", map[string]string{"username": "alice", "password": pass},
			nil, `"identity"`},
		{"ssh key without known hosts", "ssh://git@git.example/r.git", map[string]string{"identity": key},
			nil, `"known_hosts"`},
		{"file url without keys is anonymous", "file:///srv/git/r.git", map[string]string{}, nil, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			g := NewWithT(t)
			data := map[string][]byte{}
			for k, v := range tc.data {
				data[k] = []byte(v)
			}
			got, err := authFromSecret(tc.url, data)
			if tc.wantErr != "" {
				g.Expect(err).To(MatchError(ContainSubstring(tc.wantErr)))
				for _, v := range tc.data {
					if len(v) >= 4 {
						g.Expect(err.Error()).NotTo(ContainSubstring(v), "an error must never carry a Secret value")
					}
				}
				return
			}
			g.Expect(err).NotTo(HaveOccurred())
			g.Expect(got).To(Equal(tc.want))
		})
	}
}

func TestIsSSHURL(t *testing.T) {
	cases := map[string]bool{
		"ssh://git@host/r.git":        true,
		"git@host:org/r.git":          true,
		"https://host/r.git":          false,
		"https://user@host/r.git":     false,
		"file:///srv/r.git":           false,
		"http://127.0.0.1:8080/r.git": false,
	}
	for url, want := range cases {
		t.Run(url, func(t *testing.T) {
			NewWithT(t).Expect(source.IsSSHURL(url)).To(Equal(want))
		})
	}
}
