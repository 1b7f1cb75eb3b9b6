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
	"fmt"
	"io"
	"path"
	"strings"
	"time"

	"github.com/go-git/go-git/v5/plumbing/object"

	"github.com/siteops/siteops/gitops/publish"
)

// maxManifestRead bounds the size of a site's manifest ReadSiteHistory reads at one commit; a larger one is
// reported as too large rather than read.
const maxManifestRead = 1 << 20

// SiteHistory is what the rendered branch holds of one site: the newest commits that changed its folder.
type SiteHistory struct {
	// Head is the commit of the branch the history was read from; "" when the branch does not exist.
	Head string
	// Path is the site's folder on the branch.
	Path string
	// Commits are the commits that changed the folder, newest first.
	Commits []SiteCommit
	// More says older commits changed the folder (or were not read, past the walk's bound).
	More bool
}

// SiteCommit is one rendered commit that changed a site's folder, with the site's manifest at it and at the
// commit before it that changed the folder.
type SiteCommit struct {
	Commit string
	// At is the committer time.
	At      time.Time
	Subject string
	// Trailers are the message's trailers in order (Siteops-Source-Revision, Siteops-Sites, …).
	Trailers []Trailer
	// SourceRevision is the Siteops-Source-Revision trailer; "" for a commit siteops did not make.
	SourceRevision string
	// Manifest is the site's manifest at the commit (empty when the folder was removed).
	Manifest SiteManifest
	// Previous is the commit before this one that changed the folder; "" when none was read.
	Previous         string
	PreviousManifest SiteManifest
}

// SiteManifest is a site's manifest file at one commit.
type SiteManifest struct {
	YAML []byte
	// TooLarge says the file is larger than ReadSiteHistory reads; YAML is then empty.
	TooLarge bool
	Size     int64
}

// ReadSiteHistory reads, from the target branch of opts (fetched into the clone cache of opts.WorkDir as
// ReadPublishes does, from head when the cache has it), the newest n commits on the first-parent line that
// changed site's folder, each with the site's manifest at it and at the commit before it that changed the
// folder. The walk reads at most lastChangeDepth commits.
func (sy *Syncer) ReadSiteHistory(ctx context.Context, opts SyncOptions, head, site string,
	n int) (SiteHistory, error) {
	tgt, h, o, err := sy.openTargetAt(ctx, opts, head)
	if err != nil {
		return SiteHistory{}, err
	}
	defer tgt.Release()
	dir, err := SitePath(o.Target.PathTemplate, site)
	if err != nil {
		return SiteHistory{}, err
	}
	hist := SiteHistory{Path: dir}
	if h.IsZero() {
		return hist, nil
	}
	hist.Head = h.String()
	var touching []*object.Commit // n+1: the last one is only the previous of the n-th
	cancelled := false
	bounded, err := walkChanges(tgt.Repo(), h, func(commit *object.Commit, changed []string) bool {
		if ctx.Err() != nil {
			cancelled = true
			return false
		}
		if touches(changed, dir) {
			touching = append(touching, commit)
		}
		return len(touching) <= n
	})
	if err != nil {
		return hist, err
	}
	hist.More = bounded || cancelled || len(touching) > n
	for i := 0; i < len(touching) && i < n; i++ {
		sc, err := siteCommit(touching[i], dir)
		if err != nil {
			return hist, err
		}
		if i+1 < len(touching) {
			sc.Previous = touching[i+1].Hash.String()
			if sc.PreviousManifest, err = readManifest(touching[i+1], dir); err != nil {
				return hist, err
			}
		}
		hist.Commits = append(hist.Commits, sc)
	}
	return hist, nil
}

// touches reports whether one of the paths is in folder dir.
func touches(paths []string, dir string) bool {
	for _, p := range paths {
		if strings.HasPrefix(p, dir+"/") {
			return true
		}
	}
	return false
}

// siteCommit is c as a SiteCommit of the site in folder dir, without its previous commit.
func siteCommit(c *object.Commit, dir string) (SiteCommit, error) {
	subject, _, _ := strings.Cut(c.Message, "\n")
	sc := SiteCommit{Commit: c.Hash.String(), At: c.Committer.When, Subject: subject,
		Trailers: publish.ParseTrailers(c.Message)}
	for _, t := range sc.Trailers {
		if t.Key == TrailerSourceRevision {
			sc.SourceRevision = t.Value
		}
	}
	var err error
	sc.Manifest, err = readManifest(c, dir)
	return sc, err
}

// readManifest reads the manifest of folder dir at commit c; an empty one when there is none.
func readManifest(c *object.Commit, dir string) (SiteManifest, error) {
	root, err := c.Tree()
	if err != nil {
		return SiteManifest{}, fmt.Errorf("reading the tree of %s: %w", c.Hash, err)
	}
	f, err := root.File(path.Join(dir, ManifestFile))
	if errors.Is(err, object.ErrFileNotFound) || errors.Is(err, object.ErrDirectoryNotFound) {
		return SiteManifest{}, nil
	}
	if err != nil {
		return SiteManifest{}, fmt.Errorf("reading %s/%s at %s: %w", dir, ManifestFile, c.Hash, err)
	}
	m := SiteManifest{Size: f.Size}
	if f.Size > maxManifestRead {
		m.TooLarge = true
		return m, nil
	}
	r, err := f.Reader()
	if err != nil {
		return m, fmt.Errorf("reading %s/%s at %s: %w", dir, ManifestFile, c.Hash, err)
	}
	defer func() { _ = r.Close() }()
	if m.YAML, err = io.ReadAll(io.LimitReader(r, maxManifestRead)); err != nil {
		return m, fmt.Errorf("reading %s/%s at %s: %w", dir, ManifestFile, c.Hash, err)
	}
	return m, nil
}
