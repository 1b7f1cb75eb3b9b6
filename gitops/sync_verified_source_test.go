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
	"errors"
	"testing"
	"time"

	. "github.com/onsi/gomega"

	"github.com/siteops/siteops/gitops/source"
	"github.com/siteops/siteops/test/gitserver"
)

// trustedEnv is a source repository whose commits a developer signs with git and gpg, and a Sync that trusts
// only the developer's key.
func trustedEnv(t *testing.T) (*syncEnv, *gitserver.Worktree, *gitserver.GPG, *gitserver.OpenPGPKey) {
	t.Helper()
	e := newSyncEnv(t, baseRepo())
	dev := gitserver.NewOpenPGPKey(t, "developer", "dev@example.com", "")
	gpg := gitserver.NewGPG(t)
	gpg.Import(t, dev.PrivateArmored)
	trusted, err := source.ParseTrustedKeys(map[string][]byte{"developer.asc": dev.PublicArmored})
	if err != nil {
		t.Fatal(err)
	}
	e.opts.Source.Verify = trusted
	return e, e.srv.Clone(t, e.repo), gpg, dev
}

func (e *syncEnv) trySync(t *testing.T) (SyncResult, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	return e.syncer.Sync(ctx, e.opts)
}

func TestVerifiedSourceRendersACommitSignedByATrustedKey(t *testing.T) {
	g := NewWithT(t)
	e, wt, gpg, dev := trustedEnv(t)
	wt.Write("overlays/dev/site-values.yaml", siteValues(2, "nginx:1.27"))
	sha := wt.CommitSigned("scale dev", gpg, dev)
	wt.Push()

	res, err := e.trySync(t)
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(res.SourceRevision).To(Equal(sha))
	g.Expect(res.Pushed).To(BeTrue())
	g.Expect(e.rendered(t, "dev")).To(ContainSubstring("nginx:1.27"))
}

func TestVerifiedSourceRefusesUnsignedAndUnknownSignersAndKeepsTheLastGoodOutput(t *testing.T) {
	g := NewWithT(t)
	e, wt, gpg, dev := trustedEnv(t)
	wt.Write("overlays/dev/site-values.yaml", siteValues(2, "nginx:1.27"))
	wt.CommitSigned("scale dev", gpg, dev)
	wt.Push()
	good, err := e.trySync(t)
	g.Expect(err).NotTo(HaveOccurred())
	renderedHead := e.srv.Head(t, e.repo, DefaultTargetBranch)
	g.Expect(renderedHead).To(Equal(good.RenderedRevision))

	// An unsigned commit on top.
	wt.Write("overlays/dev/site-values.yaml", siteValues(5, "evil:latest"))
	unsigned := wt.Commit("unsigned change")
	wt.Push()
	_, err = e.trySync(t)
	g.Expect(err).To(HaveOccurred())
	g.Expect(errors.Is(err, source.ErrSourceNotVerified)).To(BeTrue())
	g.Expect(IsPermanent(err)).To(BeTrue())
	g.Expect(err.Error()).To(ContainSubstring("commit " + unsigned[:12] + " is not signed"))
	g.Expect(e.srv.Head(t, e.repo, DefaultTargetBranch)).To(Equal(renderedHead), "the rendered branch is untouched")
	g.Expect(e.rendered(t, "dev")).To(ContainSubstring("nginx:1.27"))

	// A commit signed by a key that is not trusted.
	stranger := gitserver.NewOpenPGPKey(t, "stranger", "stranger@example.com", "")
	gpg.Import(t, stranger.PrivateArmored)
	wt.Write("overlays/dev/site-values.yaml", siteValues(6, "evil:latest"))
	signedByStranger := wt.CommitSigned("stranger's change", gpg, stranger)
	wt.Push()
	_, err = e.trySync(t)
	g.Expect(errors.Is(err, source.ErrSourceNotVerified)).To(BeTrue())
	g.Expect(err.Error()).To(ContainSubstring("commit " + signedByStranger[:12] + " is signed by key " + stranger.KeyID +
		", which is not one of the trusted keys"))
	g.Expect(e.srv.Head(t, e.repo, DefaultTargetBranch)).To(Equal(renderedHead))
	g.Expect(e.rendered(t, "dev")).NotTo(ContainSubstring("evil"))

	// The developer signs a fix: rendering resumes.
	wt.Write("overlays/dev/site-values.yaml", siteValues(3, "nginx:1.28"))
	wt.CommitSigned("fix", gpg, dev)
	wt.Push()
	_, err = e.trySync(t)
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(e.rendered(t, "dev")).To(ContainSubstring("nginx:1.28"))
}

func TestParseTrustedKeys(t *testing.T) {
	a := gitserver.NewOpenPGPKey(t, "a", "a@example.com", "")
	b := gitserver.NewOpenPGPKey(t, "b", "b@example.com", "")
	both := append(append([]byte{}, a.PublicArmored...), b.PublicArmored...)
	for _, tc := range []struct {
		name    string
		entries map[string][]byte
		wantIDs []string
		wantErr string
	}{
		{"one key per entry", map[string][]byte{"a.asc": a.PublicArmored, "b.asc": b.PublicArmored}, []string{a.KeyID,
			b.KeyID}, ""},
		{"two keys in one entry", map[string][]byte{"keys": both}, []string{a.KeyID, b.KeyID}, ""},
		{"no entries", map[string][]byte{}, nil, "no trusted OpenPGP public key"},
		{"not armored", map[string][]byte{"a.asc": a.PublicArmored, "bad.asc": []byte("hello")}, nil,
			`trusted keys "bad.asc": not an ASCII-armored`},
		{"empty entry", map[string][]byte{"empty": nil}, nil, `trusted keys "empty": no OpenPGP public key`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g := NewWithT(t)
			k, err := source.ParseTrustedKeys(tc.entries)
			if tc.wantErr != "" {
				g.Expect(err).To(MatchError(ContainSubstring(tc.wantErr)))
				return
			}
			g.Expect(err).NotTo(HaveOccurred())
			g.Expect(k.KeyIDs()).To(ConsistOf(tc.wantIDs))
		})
	}
}
