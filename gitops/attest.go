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
	"fmt"
	"net/url"

	"github.com/go-git/go-git/v5/plumbing"

	"github.com/siteops/siteops/gitops/internal/tree"
	"github.com/siteops/siteops/gitops/provenance"
	"github.com/siteops/siteops/gitops/publish"
	"github.com/siteops/siteops/gitops/source"
	"github.com/siteops/siteops/internal/version"
)

// ProvenanceOptions say what each site's provenance records beyond what a Sync knows. A Sync with a signing
// key writes, next to each site's output, the signed in-toto statement of how it was made
// (provenance.AttestationPath); without a key it writes none.
type ProvenanceOptions struct {
	// SiteSync is "namespace/name" of the SiteSync that publishes, recorded as an external parameter.
	SiteSync string
}

// attester makes the attestations of the sites a Sync renders: statements signed with the target's key.
type attester struct {
	key   *publish.SigningKey
	base  provenance.Input
	build version.Build
}

// newAttester is the attester of a Sync of sourceRev, or nil when o has no signing key.
func newAttester(o SyncOptions, sourceRev string) *attester {
	if o.Target.SigningKey == nil {
		return nil
	}
	return &attester{key: o.Target.SigningKey, build: version.Current(), base: provenance.Input{
		SiteSync:     o.Provenance.SiteSync,
		Source:       provenance.Source{URL: withoutUserinfo(o.Source.URL), Ref: o.Source.Ref, OverlaysDir: o.OverlaysDir},
		SourceCommit: sourceRev,
	}}
}

// attest returns the signed statement of r's output yaml, to publish at provenance.AttestationPath(r.name).
func (a *attester) attest(ctx context.Context, r *siteRun, yaml []byte) ([]byte, error) {
	in := a.base
	in.Site, in.Folder, in.Files = r.name, r.path, map[string][]byte{ManifestFile: yaml}
	in.OverlayDir, in.Inputs, in.InputDigest, in.Builder = r.dir, r.in.Files, r.in.Digest, a.build
	if r.policy != nil {
		in.Policy = &provenance.PolicyResults{Digest: r.policy.Digest, Summary: r.policy.Summary,
			Findings: r.policy.Findings}
	}
	return provenance.Sign(ctx, provenance.NewStatement(in), a.key)
}

// attestationBlob is the blob of site's attestation in a commit of the target branch (zero: none).
func attestationBlob(c *source.Cache, commit, site string) (plumbing.Hash, error) {
	co, err := c.Repo().CommitObject(plumbing.NewHash(commit))
	if err != nil {
		return plumbing.ZeroHash, fmt.Errorf("reading rendered commit %s: %w", commit, err)
	}
	root, err := co.Tree()
	if err != nil {
		return plumbing.ZeroHash, fmt.Errorf("reading the tree of rendered commit %s: %w", commit, err)
	}
	mode, h, err := tree.NewGit(c.Repo().Storer, root).Entry(provenance.AttestationPath(site))
	if err != nil || !mode.IsFile() {
		return plumbing.ZeroHash, err
	}
	return h, nil
}

// hasAttestation reports whether the target branch holds an attestation of site.
func hasAttestation(t *tree.Git, site string) bool {
	if t == nil {
		return false
	}
	mode, _, err := t.Entry(provenance.AttestationPath(site))
	return err == nil && mode.IsFile()
}

// withoutUserinfo is u without credentials: an HTTP(S) URL loses its user info (a token may stand in the user
// name), any URL its password; an SSH user name stays.
func withoutUserinfo(u string) string {
	p, err := url.Parse(u)
	if err != nil || p.User == nil {
		return u
	}
	if _, hasPassword := p.User.Password(); hasPassword || p.Scheme == "http" || p.Scheme == "https" {
		p.User = nil
	}
	return p.String()
}
