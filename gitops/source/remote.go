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
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"sync"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/format/packfile"
	"github.com/go-git/go-git/v5/plumbing/protocol/packp"
	"github.com/go-git/go-git/v5/plumbing/protocol/packp/capability"
	"github.com/go-git/go-git/v5/plumbing/protocol/packp/sideband"
	"github.com/go-git/go-git/v5/plumbing/transport"
	"github.com/go-git/go-git/v5/plumbing/transport/client"
	githttp "github.com/go-git/go-git/v5/plumbing/transport/http"

	"github.com/siteops/siteops/gitops/internal/permanent"
)

// remotes owns what a process keeps about the Git remotes it talks to: one HTTP(S) client for every cache,
// whose transports (one per CA bundle) are kept so a Sync's requests reuse open connections instead of a new
// TCP (and TLS) handshake per request, and the receive-pack capabilities of the HTTP(S) remotes pushed to.
type remotes struct {
	http     transport.Transport
	pushCaps sync.Map // url → *capability.List
}

func newRemotes() *remotes {
	return &remotes{http: githttp.NewClientWithOptions(&http.Client{Transport: http.DefaultTransport},
		&githttp.ClientOptions{CacheMaxEntries: 64})}
}

// newTransport returns the Git transport and endpoint of the cache's remote.
func (c *Cache) newTransport() (transport.Transport, *transport.Endpoint, error) {
	ep, err := transport.NewEndpoint(c.url)
	if err != nil {
		return nil, nil, permanent.Error(fmt.Errorf("parsing git URL: %w", redactURLError(err)))
	}
	ep.CaBundle = c.ca
	if ep.Protocol == "http" || ep.Protocol == "https" {
		return c.remotes.http, ep, nil
	}
	t, err := client.NewClient(ep)
	if err != nil {
		return nil, nil, permanent.Error(fmt.Errorf("git transport: %w", err))
	}
	return t, ep, nil
}

// Refs are the refs a remote advertises, with the capabilities of its upload-pack.
type Refs struct {
	hashes map[plumbing.ReferenceName]plumbing.Hash
	head   plumbing.ReferenceName // the branch HEAD names, "" if unknown
	caps   *capability.List
	Listed bool // false: not listed (the zero value), e.g. a source fetched by SHA
}

// listRemote lists the remote's refs: one request. An empty repository has none.
func (c *Cache) listRemote(ctx context.Context) (Refs, error) {
	out := Refs{hashes: map[plumbing.ReferenceName]plumbing.Hash{}, caps: capability.NewList(), Listed: true}
	t, ep, err := c.newTransport()
	if err != nil {
		return out, err
	}
	s, err := t.NewUploadPackSession(ep, c.auth)
	if err != nil {
		return out, classifyTransport(err)
	}
	defer func() { _ = s.Close() }()
	ar, err := s.AdvertisedReferencesContext(ctx)
	if errors.Is(err, transport.ErrEmptyRemoteRepository) {
		return out, nil
	}
	if err != nil {
		return out, classifyTransport(err)
	}
	out.caps = ar.Capabilities
	all, err := ar.AllReferences()
	if err != nil {
		return out, fmt.Errorf("reading the remote's refs: %w", err)
	}
	for name, ref := range all {
		switch {
		case name == plumbing.HEAD && ref.Type() == plumbing.SymbolicReference:
			out.head = ref.Target()
		case ref.Type() == plumbing.HashReference && name != plumbing.HEAD:
			out.hashes[name] = ref.Hash()
		}
	}
	return out, nil
}

// fetchRefAt makes local point at want, a commit or tag the remote advertised in refs, fetching it (one
// request) unless the cache has it already. depth 1 keeps the cache shallow: its first fetch brings only
// that commit, a later one the commits since the cache's; 0 fetches the whole history.
func (c *Cache) fetchRefAt(ctx context.Context, refs Refs, want plumbing.Hash, local plumbing.ReferenceName,
	depth int) error {
	if _, err := c.repo.Storer.EncodedObject(plumbing.AnyObject, want); err != nil {
		if err := c.fetchPack(ctx, refs.caps, want, depth); err != nil {
			return err
		}
	}
	if err := c.repo.Storer.SetReference(plumbing.NewHashReference(local, want)); err != nil {
		return fmt.Errorf("setting %s: %w", local, err)
	}
	return nil
}

// fetchPack asks the remote for want, telling it the tips of the cache's refs, and stores the pack it sends.
func (c *Cache) fetchPack(ctx context.Context, caps *capability.List, want plumbing.Hash, depth int) (err error) {
	req := packp.NewUploadPackRequestFromCapabilities(caps)
	if caps.Supports(capability.NoProgress) {
		if err := req.Capabilities.Set(capability.NoProgress); err != nil {
			return fmt.Errorf("upload-pack request: %w", err)
		}
	}
	req.Wants = []plumbing.Hash{want}
	if req.Haves, err = c.refTips(); err != nil {
		return err
	}
	if depth > 0 {
		if err := req.Capabilities.Set(capability.Shallow); err != nil {
			return fmt.Errorf("upload-pack request: %w", err)
		}
		if req.Shallows, err = c.repo.Storer.Shallow(); err != nil {
			return fmt.Errorf("reading the cache's shallow commits: %w", err)
		}
		// Only a first fetch is cut at depth: deepening makes the remote send want's whole tree again,
		// whatever the cache has, while a fetch that names the cache's commits (and where its history
		// stops) brings only the objects the new commits added.
		if len(req.Haves) == 0 {
			req.Depth = packp.DepthCommits(depth)
		}
	}
	t, ep, err := c.newTransport()
	if err != nil {
		return err
	}
	s, err := t.NewUploadPackSession(ep, c.auth)
	if err != nil {
		return classifyTransport(err)
	}
	defer func() { _ = s.Close() }()
	resp, err := s.UploadPack(ctx, req)
	if errors.Is(err, transport.ErrEmptyUploadPackRequest) {
		return nil
	}
	if err != nil {
		return classifyTransport(err)
	}
	defer func() { _ = resp.Close() }()
	if depth > 0 && len(resp.Shallows) > 0 {
		if err := c.addShallows(resp.Shallows); err != nil {
			return err
		}
	}
	var pack io.Reader = resp
	switch {
	case req.Capabilities.Supports(capability.Sideband64k):
		pack = sideband.NewDemuxer(sideband.Sideband64k, resp)
	case req.Capabilities.Supports(capability.Sideband):
		pack = sideband.NewDemuxer(sideband.Sideband, resp)
	}
	if err := packfile.UpdateObjectStorage(c.repo.Storer, pack); err != nil {
		return fmt.Errorf("storing the fetched objects: %w", err)
	}
	return nil
}

// refTips are the commits the cache's refs point at: what it tells the remote it has.
func (c *Cache) refTips() ([]plumbing.Hash, error) {
	iter, err := c.repo.Storer.IterReferences()
	if err != nil {
		return nil, fmt.Errorf("listing the cache's refs: %w", err)
	}
	seen := map[plumbing.Hash]bool{}
	var out []plumbing.Hash
	err = iter.ForEach(func(r *plumbing.Reference) error {
		if r.Type() == plumbing.HashReference && !seen[r.Hash()] {
			seen[r.Hash()] = true
			// A ref to a commit the store lost (a damaged cache) is no have: the remote would not send
			// what that commit holds.
			if c.repo.Storer.HasEncodedObject(r.Hash()) == nil {
				out = append(out, r.Hash())
			}
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("listing the cache's refs: %w", err)
	}
	return out, nil
}

// addShallows records the shallow boundary the remote sent.
func (c *Cache) addShallows(add []plumbing.Hash) error {
	cur, err := c.repo.Storer.Shallow()
	if err != nil {
		return fmt.Errorf("reading the cache's shallow commits: %w", err)
	}
	have := map[plumbing.Hash]bool{}
	for _, h := range cur {
		have[h] = true
	}
	for _, h := range add {
		if !have[h] {
			cur, have[h] = append(cur, h), true
		}
	}
	if err := c.repo.Storer.SetShallow(cur); err != nil {
		return fmt.Errorf("recording the cache's shallow commits: %w", err)
	}
	return nil
}
