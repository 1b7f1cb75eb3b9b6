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
	"time"

	"github.com/go-git/go-git/v5/plumbing"

	"github.com/siteops/siteops/gitops/ledger"
	"github.com/siteops/siteops/gitops/source"
)

// ReadPublishes reads the rendered commits of the target branch of opts whose committer time is not before
// since, newest first (see ledger.ReadPublishes), from the clone cache the Syncs of opts.WorkDir keep. It
// reads from head (a rendered commit, say status.renderedRevision) when the cache has it, else it fetches
// the branch and reads from its head. The Syncer remembers what it read, so the next call reads only newer
// commits.
func (sy *Syncer) ReadPublishes(ctx context.Context, opts SyncOptions, head string,
	since time.Time) ([]ledger.Publish, error) {
	tgt, h, _, err := sy.openTargetAt(ctx, opts, head)
	if err != nil {
		return nil, err
	}
	defer tgt.Release()
	return sy.ledger.Read(tgt.Dir(), tgt.Repo(), h, since)
}

// openTargetAt opens the clone cache of the target branch of opts and returns it with the commit to read
// from: head when the cache has it, else the branch's head as fetched (zero when the branch does not
// exist). It returns opts with their defaults. Release the cache when done.
func (sy *Syncer) openTargetAt(ctx context.Context, opts SyncOptions, head string) (*source.Cache, plumbing.Hash,
	SyncOptions, error) {
	o, err := withDefaults(opts)
	if err != nil {
		return nil, plumbing.ZeroHash, o, err
	}
	auth, err := source.AuthMethod(o.Target.URL, o.Target.Auth, o.WorkDir)
	if err != nil {
		return nil, plumbing.ZeroHash, o, err
	}
	ca, err := source.CABundle(o.Target.Auth)
	if err != nil {
		return nil, plumbing.ZeroHash, o, err
	}
	tgt, err := sy.caches.Open(o.WorkDir, "tgt", o.Target.URL, auth, ca)
	if err != nil {
		return nil, plumbing.ZeroHash, o, err
	}
	h := plumbing.NewHash(head)
	if _, err := tgt.Repo().CommitObject(h); head == "" || err != nil {
		b, err := tgt.FetchBranch(ctx, o.Target.Branch)
		if err != nil {
			tgt.Release()
			return nil, plumbing.ZeroHash, o, o.redact(fmt.Errorf("fetching target branch %q: %w", o.Target.Branch, err))
		}
		h = b.Head
	}
	return tgt, h, o, nil
}
