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
	"fmt"
	"slices"

	"github.com/go-git/go-git/v5/plumbing"

	"github.com/siteops/siteops/gitops/internal/tree"
	"github.com/siteops/siteops/gitops/publish"
	"github.com/siteops/siteops/gitops/source"
)

// PublishGate chooses, after the sites are rendered and before anything is committed, which sites' new
// output is published and which sites get older output back. It is how waves, freeze windows and reverts
// hold or restore sites; nil publishes every rendered site.
type PublishGate func(GateInput) GateDecision

// GateInput is what the gate decides on.
type GateInput struct {
	SourceRevision string
	// Changed are the sites whose new output differs from their folder on the target branch, by name.
	Changed []string
}

// GateDecision is what to commit. Changed sites not in Publish keep their folders as they are on the target
// branch: they are held (SiteState.Held) and rendered again next time.
type GateDecision struct {
	Publish []string
	// Restore writes the folder of a site as it was in an earlier commit of the target branch.
	Restore  []Restore
	Trailers []Trailer
}

// Restore is a site's output written back from an earlier rendered commit.
type Restore struct {
	Site string
	// Commit is the target-branch commit whose folder of the site is written back; Revision is the source
	// revision of that output, recorded as the site's LastRenderedRevision.
	Commit, Revision string
}

// gated is the outcome of a gate: what publish writes and the commit's extra trailers.
type gated struct {
	restored map[string]string // site → source revision of the restored output
	trailers []Trailer
}

// applyGate asks the gate which rendered sites to publish, leaves the held ones out (keeping their previous
// state, so they render again) and adds the restored outputs.
func applyGate(c *source.Cache, st publish.Target, gate PublishGate, o SyncOptions, sourceRev string,
	plan *sitePlan) (gated, error) {
	var changed []string
	for _, r := range plan.runs {
		if r.blob.IsZero() {
			continue
		}
		if old, ok := manifestBlob(st.Files, r.path); !ok || old != r.blob {
			changed = append(changed, r.name)
		}
	}
	slices.Sort(changed)
	dec := gate(GateInput{SourceRevision: sourceRev, Changed: changed})
	g := gated{restored: map[string]string{}, trailers: dec.Trailers}
	for _, name := range changed {
		if slices.Contains(dec.Publish, name) {
			continue
		}
		r, prev := plan.byName[name], o.Previous[name]
		r.blob, r.attestation = plumbing.ZeroHash, plumbing.ZeroHash
		r.state.Held, r.state.InputDigest = true, prev.InputDigest
	}
	for _, rs := range dec.Restore {
		r, ok := plan.byName[rs.Site]
		if !ok || r.path == "" {
			continue
		}
		blob, err := commitManifestBlob(c, rs.Commit, r.path)
		if err != nil {
			return g, fmt.Errorf("reading the output of site %s in rendered commit %s: %w", rs.Site, rs.Commit, err)
		}
		if r.attestation, err = attestationBlob(c, rs.Commit, rs.Site); err != nil {
			return g, err
		}
		r.blob = blob
		g.restored[rs.Site] = rs.Revision
		r.state.Held, r.state.InputDigest = false, "" // rendered again next time, and held by the gate
	}
	return g, nil
}

// manifestBlob is the blob of a site folder's manifest in t (nil: none), without reading it.
func manifestBlob(t *tree.Git, dir string) (plumbing.Hash, bool) {
	if t == nil {
		return plumbing.ZeroHash, false
	}
	mode, h, err := t.Entry(dir + "/" + ManifestFile)
	if err != nil || !mode.IsFile() {
		return plumbing.ZeroHash, false
	}
	return h, true
}

// commitManifestBlob is the blob of a site folder's manifest in a commit of the target branch's history.
func commitManifestBlob(c *source.Cache, commit, dir string) (plumbing.Hash, error) {
	co, err := c.Repo().CommitObject(plumbing.NewHash(commit))
	if err != nil {
		return plumbing.ZeroHash, err
	}
	root, err := co.Tree()
	if err != nil {
		return plumbing.ZeroHash, err
	}
	h, ok := manifestBlob(tree.NewGit(c.Repo().Storer, root), dir)
	if !ok {
		return plumbing.ZeroHash, fmt.Errorf("no %s/%s in it", dir, ManifestFile)
	}
	return h, nil
}
