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

package ociartifact

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/google/go-containerregistry/pkg/name"
	"github.com/google/go-containerregistry/pkg/v1/remote"
	"github.com/google/go-containerregistry/pkg/v1/remote/transport"
	"github.com/google/go-containerregistry/pkg/v1/static"

	"github.com/siteops/siteops/gitops/internal/permanent"
)

// shortCommit is the length of the rendered commit in a site's tag.
const shortCommit = 12

// Target names the OCI repository sites are published to, as registry/path without scheme or tag
// (registry.example.com/sites).
type Target struct {
	Repository string
	Auth       *Auth
}

// Site is one site's rendered folder at a rendered commit.
type Site struct {
	Name   string
	Commit string            // the rendered commit (full SHA) that last changed the folder
	Files  map[string][]byte // the folder's files, by slash path relative to the folder
	// Provenance is the site's DSSE envelope; nil pushes no referrer.
	Provenance []byte
}

// Published is where a site's artifact is.
type Published struct {
	Digest string   // the artifact's manifest digest, sha256:…
	Tags   []string // `<site>-<commit short>`, then `<site>`
	// ProvenanceDigest is the referrer's manifest digest, "" without provenance.
	ProvenanceDigest string
}

// Publisher pushes sites to one OCI repository.
type Publisher struct {
	repo    name.Repository
	opts    []remote.Option
	secrets []string // what errors must not quote
}

// NewPublisher checks t and makes its Publisher. An invalid repository, Docker config or CA bundle is a
// permanent error.
func NewPublisher(t Target) (*Publisher, error) {
	repo, err := name.NewRepository(t.Repository, name.StrictValidation)
	if err != nil {
		return nil, permanent.Error(fmt.Errorf("invalid OCI repository %q: %w", t.Repository, err))
	}
	auth, err := authenticator(t.Auth, repo.Registry)
	if err != nil {
		return nil, err
	}
	rt, err := httpTransport(t.Auth)
	if err != nil {
		return nil, err
	}
	// The Sync is retried as a whole with its own backoff: one quick retry per request is enough here.
	retry := remote.Backoff{Duration: 500 * time.Millisecond, Factor: 2, Steps: 2}
	return &Publisher{repo: repo, secrets: secrets(t.Auth), opts: []remote.Option{remote.WithAuth(auth),
		remote.WithTransport(rt), remote.WithRetryBackoff(retry)}}, nil
}

// Tag is the tag of site's artifact at a rendered commit.
func Tag(site, commit string) string {
	if len(commit) > shortCommit {
		commit = commit[:shortCommit]
	}
	return site + "-" + commit
}

// Publish pushes s's folder as an artifact tagged Tag(s.Name, s.Commit) and s.Name, then its provenance as
// a referrer of the artifact. Pushing the same site at the same commit again gives the same digests.
// Refused credentials are a permanent error; others (an unreachable registry) are worth retrying.
func (p *Publisher) Publish(ctx context.Context, s Site) (Published, error) {
	layer, err := folderLayer(s.Files)
	if err != nil {
		return Published{}, err
	}
	m, err := newManifest(ArtifactType, emptyMediaType, layer, nil, map[string]string{AnnotationSite: s.Name,
		AnnotationCommit: s.Commit, annotationRevision: s.Commit})
	if err != nil {
		return Published{}, err
	}
	desc, err := m.descriptor()
	if err != nil {
		return Published{}, err
	}
	opts := append([]remote.Option{remote.WithContext(ctx)}, p.opts...)
	if err := remote.WriteLayer(p.repo, layer, opts...); err != nil {
		return Published{}, p.classify(err)
	}
	if err := remote.WriteLayer(p.repo, static.NewLayer([]byte(emptyConfig), emptyMediaType), opts...); err != nil {
		return Published{}, p.classify(err)
	}
	out := Published{Digest: desc.Digest.String(), Tags: []string{Tag(s.Name, s.Commit), s.Name}}
	for _, tag := range out.Tags {
		if err := remote.Put(p.repo.Tag(tag), m, opts...); err != nil {
			return Published{}, p.classify(err)
		}
	}
	if s.Provenance == nil {
		return out, nil
	}
	env := static.NewLayer(s.Provenance, ProvenanceMediaType)
	ref, err := newManifest(ProvenanceArtifactType, ProvenanceArtifactType, env, &desc, nil)
	if err != nil {
		return Published{}, err
	}
	refDesc, err := ref.descriptor()
	if err != nil {
		return Published{}, err
	}
	if err := remote.WriteLayer(p.repo, env, opts...); err != nil {
		return Published{}, p.classify(err)
	}
	provConfig := static.NewLayer([]byte(emptyConfig), ProvenanceArtifactType)
	if err := remote.WriteLayer(p.repo, provConfig, opts...); err != nil {
		return Published{}, p.classify(err)
	}
	if err := remote.Put(p.repo.Digest(refDesc.Digest.String()), ref, opts...); err != nil {
		return Published{}, p.classify(err)
	}
	out.ProvenanceDigest = refDesc.Digest.String()
	return out, nil
}

// classify wraps err with the repository, without the credentials' secrets, permanent when the registry
// refused the credentials or the repository's name.
func (p *Publisher) classify(err error) error {
	var te *transport.Error
	refused := errors.As(err, &te) && (te.StatusCode == http.StatusUnauthorized ||
		te.StatusCode == http.StatusForbidden || te.StatusCode == http.StatusNotFound ||
		te.StatusCode == http.StatusBadRequest)
	msg := err.Error()
	for _, s := range p.secrets {
		msg = strings.ReplaceAll(msg, s, "[redacted]")
	}
	if msg != err.Error() {
		err = errors.New(msg)
	}
	err = fmt.Errorf("pushing to %s: %w", p.repo, err)
	if refused {
		return permanent.Error(err)
	}
	return err
}
