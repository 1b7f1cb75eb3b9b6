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

	"github.com/siteops/siteops/gitops/publish"
	"github.com/siteops/siteops/test/gitserver"
)

func TestSignedRenderedCommitsPassGitVerifyCommit(t *testing.T) {
	g := NewWithT(t)
	e := newSyncEnv(t, baseRepo())
	pgp := gitserver.NewOpenPGPKey(t, "siteops renderer", "renderer@example.com", "correct horse")
	key, err := publish.ParseSigningKey(pgp.PrivateArmored, []byte("correct horse"))
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
	key, err := publish.ParseSigningKey(other.PrivateArmored, nil)
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
