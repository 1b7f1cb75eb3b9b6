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
	"errors"
	"fmt"
	"testing"

	. "github.com/onsi/gomega"
)

func TestRedactorScrubsCredentials(t *testing.T) {
	const (
		pass    = "hunter2-very-secret"
		keyLine = "b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQ"
	)
	key := "-----BEGIN OPENSSH PRIVATE KEY-----\n" + keyLine + "\n-----END OPENSSH PRIVATE KEY-----\n"
	r := NewRedactor(&Auth{Username: "alice", Password: pass}, nil, &Auth{SSHPrivateKey: []byte(key)})
	cases := []struct {
		name, in, want string
	}{
		{"password", "auth failed for " + pass, "auth failed for ***"},
		{"key line", "parse error near " + keyLine, "parse error near ***"},
		{"url userinfo", "fetch https://bob:xyz@host/r.git: 401", "fetch https://***@host/r.git: 401"},
		{"username is not secret", "user alice denied", "user alice denied"},
		{"plain text untouched", "nothing to hide", "nothing to hide"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			NewWithT(t).Expect(r.String(tc.in)).To(Equal(tc.want))
		})
	}
}

func TestRedactedErrorKeepsChain(t *testing.T) {
	g := NewWithT(t)
	sentinel := errors.New("sentinel")
	r := NewRedactor(&Auth{Password: "s3cr3t-token"})
	err := r.Error(fmt.Errorf("pushing with s3cr3t-token: %w", sentinel))
	g.Expect(err.Error()).To(Equal("pushing with ***: sentinel"))
	g.Expect(errors.Is(err, sentinel)).To(BeTrue())
	g.Expect(r.Error(nil)).To(BeNil())
	clean := errors.New("clean")
	g.Expect(r.Error(clean)).To(BeIdenticalTo(clean))
}

func TestRedactorIgnoresShortValues(t *testing.T) {
	// A one-letter password would otherwise be replaced all over every message.
	r := NewRedactor(&Auth{Password: "a"})
	NewWithT(t).Expect(r.String("a banana")).To(Equal("a banana"))
}
