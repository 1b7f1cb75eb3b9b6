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

import (
	"testing"

	. "github.com/onsi/gomega"

	"github.com/siteops/siteops/gitops/source"
	"github.com/siteops/siteops/test/gitserver"
)

// tlsEnv serves the source repository over HTTPS with a CA made for the test (and basic auth, as a company
// Git server would).
func tlsEnv(t *testing.T) (*syncEnv, *gitserver.CA) {
	t.Helper()
	ca := gitserver.NewCA(t)
	srv := gitserver.Start(t, gitserver.Options{TLS: ca, Username: "bot", Password: "tls-pass-123"})
	url := srv.NewRepo(t, "config", baseRepo())
	return syncEnvOf(t, srv, url), ca
}

func TestHTTPSWithThePrivateCAFromTheCredentialsSyncsAndPushes(t *testing.T) {
	g := NewWithT(t)
	e, ca := tlsEnv(t)
	g.Expect(e.opts.Source.URL).To(HavePrefix("https://127.0.0.1:"))
	e.opts.Source.Auth = &Auth{Username: "bot", Password: "tls-pass-123", CABundle: ca.CertPEM}

	res := e.sync(t, nil)
	g.Expect(res.Pushed).To(BeTrue())
	g.Expect(e.srv.Head(t, e.repo, DefaultTargetBranch)).To(Equal(res.RenderedRevision))
	g.Expect(e.rendered(t, "prod")).To(ContainSubstring("nginx:1.26"))

	// The CLI's read path (FetchBranch) trusts the same CA.
	c, ok, err := e.syncer.FetchBranch(t.Context(), t.TempDir(), e.opts.Source.URL, DefaultTargetBranch,
		e.opts.Source.Auth)
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(ok).To(BeTrue())
	defer c.Close()
	g.Expect(c.Revision).To(Equal(res.RenderedRevision))
}

func TestHTTPSWithAnUnknownCAFailsClearlyAndPermanently(t *testing.T) {
	other := gitserver.NewCA(t) // a CA, but not the one that signed the server's certificate
	for _, tc := range []struct {
		name string
		ca   []byte
	}{
		{"system roots only", nil},
		{"another CA", other.CertPEM},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g := NewWithT(t)
			e, _ := tlsEnv(t)
			e.opts.Source.Auth = &Auth{Username: "bot", Password: "tls-pass-123", CABundle: tc.ca}
			_, err := e.trySync(t)
			g.Expect(err).To(HaveOccurred())
			g.Expect(IsPermanent(err)).To(BeTrue())
			g.Expect(err.Error()).To(ContainSubstring("TLS certificate is signed by an unknown authority"))
			g.Expect(err.Error()).To(ContainSubstring("ca.crt"))
			g.Expect(err.Error()).NotTo(ContainSubstring("tls-pass-123"))
			g.Expect(e.srv.Head(t, e.repo, DefaultTargetBranch)).To(BeEmpty())
		})
	}
}

func TestValidateCABundle(t *testing.T) {
	ca := gitserver.NewCA(t)
	for _, tc := range []struct {
		name    string
		pem     string
		wantErr string
	}{
		{"one certificate", string(ca.CertPEM), ""},
		{"two certificates", string(ca.CertPEM) + string(gitserver.NewCA(t).CertPEM), ""},
		{"empty", "", "holds no PEM certificate"},
		{"not PEM", "hello", "holds no PEM certificate"},
		{"a private key", "-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n", `type "PRIVATE KEY"`},
		{"garbage certificate", "-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n",
			"certificate 1 cannot be parsed"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g := NewWithT(t)
			err := source.ValidateCABundle([]byte(tc.pem))
			if tc.wantErr == "" {
				g.Expect(err).NotTo(HaveOccurred())
				return
			}
			g.Expect(err).To(MatchError(ContainSubstring(tc.wantErr)))
			g.Expect(IsPermanent(err)).To(BeTrue())
		})
	}
}
