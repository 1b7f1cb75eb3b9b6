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
	"crypto/sha256"
	"encoding/hex"
	"strings"
	"testing"
	"time"

	. "github.com/onsi/gomega"

	"github.com/siteops/siteops/gitops/provenance"
	"github.com/siteops/siteops/gitops/publish"
	"github.com/siteops/siteops/test/gitserver"
)

// provenanceEnv is a syncEnv whose Syncs sign with a fresh OpenPGP key, and that key's public half.
func provenanceEnv(t *testing.T) (*syncEnv, *gitserver.OpenPGPKey) {
	t.Helper()
	e := newSyncEnv(t, baseRepo())
	pgp := gitserver.NewOpenPGPKey(t, "siteops renderer", "renderer@example.com", "")
	key, err := publish.ParseSigningKey(pgp.PrivateArmored, nil)
	if err != nil {
		t.Fatal(err)
	}
	e.opts.Target.SigningKey = key
	e.opts.Provenance.SiteSync = "platform/sites"
	return e, pgp
}

// verify runs VerifySite on the rendered branch of e (its head, or commit) with the armored public key.
func (e *syncEnv) verify(t *testing.T, site, commit string, public []byte) (VerifyResult, error) {
	t.Helper()
	key, err := provenance.ParsePublicKey(public)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	return e.syncer.VerifySite(ctx, VerifyOptions{WorkDir: t.TempDir(), URL: e.srv.URL(e.repo), Site: site,
		Commit: commit, Key: key})
}

func TestSyncAttestsEachSiteAndVerifyTracesItsBytesToTheSource(t *testing.T) {
	t.Parallel()
	g := NewWithT(t)
	e, pgp := provenanceEnv(t)
	res := e.sync(t, nil)
	g.Expect(res.Pushed).To(BeTrue())

	files := e.srv.Files(t, e.repo, DefaultTargetBranch)
	for _, s := range []string{"dev", "prod", "edge"} {
		g.Expect(files).To(ContainElement(".siteops/attestations/" + s + ".intoto.json"))
	}
	v, err := e.verify(t, "dev", "", pgp.PublicArmored)
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(v.Commit).To(Equal(res.RenderedRevision))
	g.Expect(v.Folder).To(Equal("dev"))
	st := v.Statement
	g.Expect(st.SourceCommit()).To(Equal(res.SourceRevision))
	sum := sha256.Sum256([]byte(e.rendered(t, "dev")))
	g.Expect(st.Subject).To(Equal([]provenance.ResourceDescriptor{{Name: "dev/manifests.yaml",
		Digest: map[string]string{"sha256": hex.EncodeToString(sum[:])}}}))
	bd := st.Predicate.BuildDefinition
	g.Expect(bd.ExternalParameters).To(Equal(provenance.ExternalParameters{Site: "dev", SiteSync: "platform/sites",
		Source: provenance.Source{URL: e.srv.URL(e.repo), Ref: gitserver.DefaultBranch, OverlaysDir: "overlays"}}))
	g.Expect(bd.InternalParameters.InputDigest).To(Equal(site(t, res, "dev").InputDigest))
	g.Expect(bd.ResolvedDependencies).To(HaveLen(3))
	overlay, shared := bd.ResolvedDependencies[1], bd.ResolvedDependencies[2]
	g.Expect(overlay.Annotations["files"]).To(ConsistOf("overlays/dev/kustomization.yaml",
		"overlays/dev/site-values.yaml"))
	g.Expect(shared.Annotations["files"]).To(ConsistOf("base/kustomization.yaml", "base/deployment.yaml",
		"base/service.yaml"))
	g.Expect(overlay.Digest["sha256"]).To(HaveLen(64))
	g.Expect(st.Predicate.RunDetails.Builder.Version).To(HaveKeyWithValue("siteops", "dev"))
	g.Expect(st.Predicate.RunDetails.Byproducts).To(BeEmpty(), "no policy ran")

	other, err := e.verify(t, "edge", "", pgp.PublicArmored)
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(other.Statement.Predicate.BuildDefinition.ResolvedDependencies[2].Annotations["files"]).To(
		ConsistOf("other-base/kustomization.yaml", "other-base/config.yaml"))
}

func TestVerifyFailsOnAFolderEditedByHandOnTheRenderedBranch(t *testing.T) {
	t.Parallel()
	g := NewWithT(t)
	e, pgp := provenanceEnv(t)
	res := e.sync(t, nil)

	writer := e.srv.Clone(t, e.repo)
	writer.Checkout(DefaultTargetBranch)
	writer.Write("dev/manifests.yaml", e.rendered(t, "dev")+"---\napiVersion: v1\nkind: ConfigMap\n"+
		"metadata: {name: by-hand}\n")
	writer.Commit("a hand edit of dev's output")
	writer.Push()

	_, err := e.verify(t, "dev", "", pgp.PublicArmored)
	g.Expect(err).To(MatchError(provenance.ErrOutputChanged))
	g.Expect(err.Error()).To(ContainSubstring("dev/manifests.yaml was changed"))
	t.Logf("siteops verify dev: %v", err)
	_, err = e.verify(t, "prod", "", pgp.PublicArmored)
	g.Expect(err).NotTo(HaveOccurred(), "the other sites' folders are untouched")
	_, err = e.verify(t, "dev", res.RenderedRevision[:10], pgp.PublicArmored)
	g.Expect(err).NotTo(HaveOccurred(), "the rendered commit before the edit still verifies")

	attested, ok := e.srv.ReadFile(t, e.repo, res.RenderedRevision, "dev/manifests.yaml")
	g.Expect(ok).To(BeTrue())
	writer.Write("dev/manifests.yaml", attested)
	writer.Write("dev/extra.yaml", "kind: ConfigMap\n")
	writer.Commit("the attested output back, and an extra file in dev's folder")
	writer.Push()
	_, err = e.verify(t, "dev", "", pgp.PublicArmored)
	g.Expect(err).To(MatchError(provenance.ErrOutputChanged))
	g.Expect(err.Error()).To(HaveSuffix(": dev/extra.yaml was added"), "only the extra file differs")
}

func TestVerifyFailsWithAnotherKeyAndWithoutAnAttestation(t *testing.T) {
	t.Parallel()
	g := NewWithT(t)
	e, pgp := provenanceEnv(t)
	e.sync(t, nil)
	other := gitserver.NewOpenPGPKey(t, "someone else", "else@example.com", "")
	_, err := e.verify(t, "dev", "", other.PublicArmored)
	g.Expect(err).To(MatchError(provenance.ErrBadSignature))
	g.Expect(err.Error()).To(ContainSubstring(strings.ToLower(other.Fingerprint)))

	// A statement re-signed with another key in place of siteops' fails the same way.
	writer := e.srv.Clone(t, e.repo)
	writer.Checkout(DefaultTargetBranch)
	forged, err := publish.ParseSigningKey(other.PrivateArmored, nil)
	g.Expect(err).NotTo(HaveOccurred())
	good, err := e.verify(t, "dev", "", pgp.PublicArmored)
	g.Expect(err).NotTo(HaveOccurred())
	envelope, err := provenance.Sign(context.Background(), good.Statement, forged)
	g.Expect(err).NotTo(HaveOccurred())
	writer.Write(provenance.AttestationPath("dev"), string(envelope))
	writer.Commit("a statement signed by someone else")
	writer.Push()
	_, err = e.verify(t, "dev", "", pgp.PublicArmored)
	g.Expect(err).To(MatchError(provenance.ErrBadSignature))

	_, err = e.verify(t, "nosuchsite", "", pgp.PublicArmored)
	g.Expect(err).To(MatchError(provenance.ErrNoAttestation))
	_, err = e.verify(t, "../dev", "", pgp.PublicArmored)
	g.Expect(err).To(MatchError(ContainSubstring(`invalid site name "../dev"`)))
}

func TestASyncWithoutSigningKeyWritesNoAttestationAndAddingOneAttestsEverySite(t *testing.T) {
	t.Parallel()
	g := NewWithT(t)
	e, pgp := provenanceEnv(t)
	key := e.opts.Target.SigningKey
	e.opts.Target.SigningKey = nil
	first := e.sync(t, nil)
	_, err := e.verify(t, "dev", "", pgp.PublicArmored)
	g.Expect(err).To(MatchError(provenance.ErrNoAttestation))
	g.Expect(err.Error()).To(ContainSubstring(".siteops/attestations/dev.intoto.json is missing"))

	e.opts.Target.SigningKey = key
	second := e.sync(t, &first)
	g.Expect(second.Pushed).To(BeTrue(), "the unchanged sites get their attestations")
	g.Expect(second.ChangedSites).To(ConsistOf("dev", "edge", "prod"))
	for _, s := range []string{"dev", "prod", "edge"} {
		_, err := e.verify(t, s, "", pgp.PublicArmored)
		g.Expect(err).NotTo(HaveOccurred(), s)
	}
	third := e.sync(t, &second)
	g.Expect(third.Pushed).To(BeFalse(), "attested sites whose inputs did not change are left as they are")
	g.Expect(e.renders.Load()).To(Equal(int64(6)), "three builds without a key, three to attest, none after")
}

func TestARemovedSiteLosesItsAttestation(t *testing.T) {
	t.Parallel()
	g := NewWithT(t)
	e, _ := provenanceEnv(t)
	first := e.sync(t, nil)
	wt := e.srv.Clone(t, e.repo)
	wt.Remove("overlays/edge")
	wt.Commit("decommission edge")
	wt.Push()
	e.sync(t, &first)
	files := e.srv.Files(t, e.repo, DefaultTargetBranch)
	g.Expect(files).NotTo(ContainElement(".siteops/attestations/edge.intoto.json"))
	g.Expect(files).To(ContainElement(".siteops/attestations/dev.intoto.json"))
}

// TestHeldAndRestoredSitesKeepAnAttestationOfTheOutputInTheirFolder: a site the gate holds keeps its folder
// and the attestation of it; a site the gate restores gets back the attestation of the output written back.
func TestHeldAndRestoredSitesKeepAnAttestationOfTheOutputInTheirFolder(t *testing.T) {
	t.Parallel()
	g := NewWithT(t)
	e, pgp := provenanceEnv(t)
	first := e.sync(t, nil)
	wt := e.srv.Clone(t, e.repo)
	wt.Write("overlays/dev/site-values.yaml", siteValues(2, "nginx:1.27"))
	wt.Write("overlays/prod/site-values.yaml", siteValues(5, "nginx:1.27"))
	wt.Commit("scale dev and prod")
	wt.Push()

	e.opts.Gate = func(GateInput) GateDecision { return GateDecision{Publish: []string{"prod"}} }
	second := e.sync(t, &first)
	g.Expect(second.ChangedSites).To(Equal([]string{"prod"}))
	g.Expect(site(t, second, "dev").Held).To(BeTrue())
	dev, err := e.verify(t, "dev", "", pgp.PublicArmored)
	g.Expect(err).NotTo(HaveOccurred(), "the held site's folder is still the output its attestation names")
	g.Expect(dev.Statement.SourceCommit()).To(Equal(first.SourceRevision))
	prod, err := e.verify(t, "prod", "", pgp.PublicArmored)
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(prod.Statement.SourceCommit()).To(Equal(second.SourceRevision))

	e.opts.Gate = nil
	third := e.sync(t, &second)
	g.Expect(third.ChangedSites).To(Equal([]string{"dev"}))
	e.opts.Gate = func(GateInput) GateDecision {
		return GateDecision{Restore: []Restore{{Site: "dev", Commit: first.RenderedRevision,
			Revision: first.SourceRevision}}}
	}
	fourth := e.sync(t, &third)
	g.Expect(fourth.ChangedSites).To(Equal([]string{"dev"}))
	dev, err = e.verify(t, "dev", "", pgp.PublicArmored)
	g.Expect(err).NotTo(HaveOccurred(), "the restored output comes back with its attestation")
	g.Expect(dev.Statement.SourceCommit()).To(Equal(first.SourceRevision))
	g.Expect(e.rendered(t, "dev")).To(ContainSubstring("replicas: 1"))
}
