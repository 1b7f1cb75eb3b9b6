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
	"context"
	"strings"
	"testing"
	"time"

	. "github.com/onsi/gomega"

	"github.com/siteops/siteops/test/gitserver"
)

func TestParseSigningKeyRefusesKeysThatCannotSign(t *testing.T) {
	locked := gitserver.NewOpenPGPKey(t, "siteops", "siteops@example.com", "s3cret-passphrase")
	plain := gitserver.NewOpenPGPKey(t, "siteops", "siteops@example.com", "")
	for _, tc := range []struct {
		name       string
		armored    []byte
		passphrase string
		wantErr    string // "" = the key is accepted
	}{
		{"unlocked key", plain.PrivateArmored, "", ""},
		{"locked key and its passphrase", locked.PrivateArmored, "s3cret-passphrase", ""},
		{"locked key without a passphrase", locked.PrivateArmored, "", "protected by a passphrase and none was given"},
		{"locked key with a wrong passphrase", locked.PrivateArmored, "wrong-guess", "the passphrase does not unlock it"},
		{"public key", plain.PublicArmored, "", "is a public key"},
		{"not armored", []byte("just some text"), "", "not an ASCII-armored OpenPGP key"},
		{"empty", nil, "", "not an ASCII-armored OpenPGP key"},
		{"armor around garbage",
			[]byte("-----BEGIN PGP PRIVATE KEY BLOCK-----\n\nAAAA\n-----END PGP PRIVATE KEY BLOCK-----\n"), "",
			"not an ASCII-armored OpenPGP key"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g := NewWithT(t)
			k, err := ParseSigningKey(tc.armored, []byte(tc.passphrase))
			if tc.wantErr == "" {
				g.Expect(err).NotTo(HaveOccurred())
				g.Expect(k.String()).To(HavePrefix("OpenPGP key "))
				return
			}
			g.Expect(err).To(MatchError(ContainSubstring(tc.wantErr)))
			g.Expect(IsPermanent(err)).To(BeTrue())
			g.Expect(err.Error()).NotTo(ContainSubstring("s3cret-passphrase"))
			g.Expect(err.Error()).NotTo(ContainSubstring("wrong-guess"))
			if len(tc.armored) > 200 {
				g.Expect(err.Error()).NotTo(ContainSubstring(string(tc.armored[100:140])), "no key material")
			}
		})
	}
}

func TestSignedRenderedCommitsPassGitVerifyCommit(t *testing.T) {
	g := NewWithT(t)
	e := newSyncEnv(t, baseRepo())
	pgp := gitserver.NewOpenPGPKey(t, "siteops renderer", "renderer@example.com", "correct horse")
	key, err := ParseSigningKey(pgp.PrivateArmored, []byte("correct horse"))
	g.Expect(err).NotTo(HaveOccurred())
	e.opts.Target.SigningKey = key

	first := e.sync(t, nil)
	g.Expect(first.Pushed).To(BeTrue())
	wt := e.srv.Clone(t, e.repo)
	wt.Write("overlays/dev/site-values.yaml", siteValues(2, "nginx:1.27"))
	wt.Commit("scale dev")
	wt.Push()
	second := e.sync(t, &first)
	g.Expect(second.Pushed).To(BeTrue())

	gpg := gitserver.NewGPG(t)
	log := e.srv.Log(t, e.repo, DefaultTargetBranch)
	g.Expect(log).To(HaveLen(2))
	// Before the public key is known, git cannot accept the signature.
	_, err = gpg.VerifyCommit(e.srv, e.repo, log[0].SHA)
	g.Expect(err).To(HaveOccurred())
	gpg.Import(t, pgp.PublicArmored)
	for _, c := range log {
		out, err := gpg.VerifyCommit(e.srv, e.repo, c.SHA)
		g.Expect(err).NotTo(HaveOccurred(), out)
		t.Logf("$ git verify-commit -v %s\n%s", c.SHA, out)
		g.Expect(out).To(ContainSubstring(`Good signature from "siteops renderer <renderer@example.com>"`))
		g.Expect(strings.ToUpper(out)).To(ContainSubstring(pgp.KeyID))
	}
}

func TestUnsignedSyncStaysUnsignedAndAnotherKeyFailsVerification(t *testing.T) {
	g := NewWithT(t)
	e := newSyncEnv(t, baseRepo())
	res := e.sync(t, nil)
	gpg := gitserver.NewGPG(t)
	gpg.Import(t, gitserver.NewOpenPGPKey(t, "someone", "someone@example.com", "").PublicArmored)
	out, err := gpg.VerifyCommit(e.srv, e.repo, res.RenderedRevision)
	g.Expect(err).To(HaveOccurred(), "a commit made without a signing key carries no signature: %s", out)

	other := gitserver.NewOpenPGPKey(t, "other", "other@example.com", "")
	key, err := ParseSigningKey(other.PrivateArmored, nil)
	g.Expect(err).NotTo(HaveOccurred())
	e.opts.Target.SigningKey = key
	wt := e.srv.Clone(t, e.repo)
	wt.Write("overlays/dev/site-values.yaml", siteValues(4, "nginx:1.27"))
	wt.Commit("scale dev")
	wt.Push()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	o := e.opts
	signed, err := e.syncer.Sync(ctx, o)
	g.Expect(err).NotTo(HaveOccurred())
	out, err = gpg.VerifyCommit(e.srv, e.repo, signed.RenderedRevision)
	g.Expect(err).To(HaveOccurred(), "signed by a key gpg does not know: %s", out)
	g.Expect(out).To(ContainSubstring(other.KeyID))
}
