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
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"

	git "github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/format/packfile"
	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/go-git/go-git/v5/plumbing/protocol/packp"
	"github.com/go-git/go-git/v5/plumbing/protocol/packp/capability"
	"github.com/go-git/go-git/v5/plumbing/storer"
	"github.com/go-git/go-git/v5/plumbing/transport"

	"github.com/siteops/siteops/gitops/internal/permanent"
)

// Push moves branch on the remote from old (zero: create it) to commit, never forcing. The update names old,
// and the remote applies it only if the branch is still there: a branch that moved meanwhile is refused
// (isPushConflict), whether or not the ref advertisement was read first.
func (c *Cache) Push(ctx context.Context, branch string, old, commit plumbing.Hash) error {
	name := plumbing.NewBranchReferenceName(branch)
	objs, err := pushObjects(c.repo.Storer, commit, old)
	if err != nil {
		return err
	}
	var pack bytes.Buffer
	if _, err := packfile.NewEncoder(&pack, c.repo.Storer, false).Encode(objs, 0); err != nil {
		return fmt.Errorf("packing commit %s: %w", commit, err)
	}
	t, ep, err := c.newTransport()
	if err != nil {
		return err
	}
	s, err := t.NewReceivePackSession(ep, c.auth)
	if err != nil {
		return classifyTransport(err)
	}
	defer func() { _ = s.Close() }()
	caps, err := c.receiveCaps(ctx, s, ep, name, old)
	if err != nil {
		return err
	}
	if !caps.Supports(capability.ReportStatus) {
		return permanent.Error(errors.New("the Git server does not report the status of a push (report-status)"))
	}
	req := packp.NewReferenceUpdateRequestFromCapabilities(caps)
	req.Commands = []*packp.Command{{Name: name, Old: old, New: commit}}
	req.Packfile = io.NopCloser(&pack)
	report, err := s.ReceivePack(ctx, req)
	if err != nil {
		return classifyTransport(err)
	}
	if report == nil {
		return errors.New("the Git server sent no status for the push")
	}
	for _, ref := range []plumbing.ReferenceName{name, remoteTracking(branch)} {
		if err := c.repo.Storer.SetReference(plumbing.NewHashReference(ref, commit)); err != nil {
			return fmt.Errorf("setting %s: %w", ref, err)
		}
	}
	return nil
}

// receiveCaps returns the remote's receive-pack capabilities: remembered for an HTTP(S) remote pushed to
// before (learnt from the first push's ref advertisement, so later pushes send the update in one request),
// otherwise read from its ref advertisement (over SSH it comes with the connection anyway), which also shows
// whether branch is still at old.
func (c *Cache) receiveCaps(ctx context.Context, s transport.ReceivePackSession, ep *transport.Endpoint,
	branch plumbing.ReferenceName, old plumbing.Hash) (*capability.List, error) {
	httpRemote := ep.Protocol == "http" || ep.Protocol == "https"
	if caps, ok := c.remotes.pushCaps.Load(c.url); ok && httpRemote {
		return caps.(*capability.List), nil
	}
	ar, err := s.AdvertisedReferencesContext(ctx)
	if err != nil {
		return nil, classifyTransport(err)
	}
	refs, err := ar.AllReferences()
	if err != nil {
		return nil, fmt.Errorf("reading the remote's refs: %w", err)
	}
	var at plumbing.Hash
	if ref, err := refs.Reference(branch); err == nil {
		at = ref.Hash()
	}
	if at != old {
		return nil, fmt.Errorf("%w: %s is at %s, the commit was made on %s", git.ErrNonFastForwardUpdate, branch,
			hashString(at), hashString(old))
	}
	if httpRemote {
		c.remotes.pushCaps.Store(c.url, ar.Capabilities)
	}
	return ar.Capabilities, nil
}

// pushObjects lists the objects of commit the remote lacks when it has old, commit's parent: the commit and
// the trees and blobs of its tree that old's tree does not hold at the same path (every one when old is
// zero). Unchanged folders are not walked.
func pushObjects(s storer.EncodedObjectStorer, commit, old plumbing.Hash) ([]plumbing.Hash, error) {
	c, err := object.GetCommit(s, commit)
	if err != nil {
		return nil, fmt.Errorf("reading commit %s: %w", commit, err)
	}
	var oldTree plumbing.Hash
	if !old.IsZero() {
		p, err := object.GetCommit(s, old)
		if err != nil {
			return nil, fmt.Errorf("reading commit %s: %w", old, err)
		}
		oldTree = p.TreeHash
	}
	w := objectWalk{s: s, seen: map[plumbing.Hash]bool{commit: true}, out: []plumbing.Hash{commit}}
	if err := w.tree(c.TreeHash, oldTree); err != nil {
		return nil, err
	}
	return w.out, nil
}

// objectWalk collects the objects of a tree that differ from an older tree, each once.
type objectWalk struct {
	s    storer.EncodedObjectStorer
	seen map[plumbing.Hash]bool
	out  []plumbing.Hash
}

func (w *objectWalk) add(h plumbing.Hash) bool {
	if w.seen[h] {
		return false
	}
	w.seen[h] = true
	w.out = append(w.out, h)
	return true
}

// tree adds tree h and what under it differs from old (zero: nothing to compare with).
func (w *objectWalk) tree(h, old plumbing.Hash) error {
	if h == old || !w.add(h) {
		return nil
	}
	t, err := object.GetTree(w.s, h)
	if err != nil {
		return fmt.Errorf("reading tree %s: %w", h, err)
	}
	prev := map[string]object.TreeEntry{}
	if !old.IsZero() {
		ot, err := object.GetTree(w.s, old)
		if err != nil {
			return fmt.Errorf("reading tree %s: %w", old, err)
		}
		for _, e := range ot.Entries {
			prev[e.Name] = e
		}
	}
	for _, e := range t.Entries {
		p, had := prev[e.Name]
		switch {
		case had && p.Hash == e.Hash:
		case e.Mode == filemode.Dir:
			var pt plumbing.Hash
			if had && p.Mode == filemode.Dir {
				pt = p.Hash
			}
			if err := w.tree(e.Hash, pt); err != nil {
				return err
			}
		case e.Mode == filemode.Submodule: // a commit of another repository
		default:
			w.add(e.Hash)
		}
	}
	return nil
}

func hashString(h plumbing.Hash) string {
	if h.IsZero() {
		return ""
	}
	return h.String()
}
