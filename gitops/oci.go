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
	"sync"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"

	"github.com/siteops/siteops/gitops/internal/permanent"
	"github.com/siteops/siteops/gitops/ociartifact"
	"github.com/siteops/siteops/gitops/provenance"
	"github.com/siteops/siteops/gitops/source"
)

// OCITarget names the OCI repository each site's output is also published to, and its credentials.
type OCITarget = ociartifact.Target

// OCIAuth holds registry credentials and a private CA, read by the caller from a Secret (never logged).
type OCIAuth = ociartifact.Auth

// OCIState is where a site's output stands in the OCI repository of TargetSpec.OCI.
type OCIState struct {
	Commit string // the rendered commit whose folder the artifact holds, or was to hold when Message is set
	Tag    string // `<site>-<commit short>`; the artifact is also tagged `<site>`
	Digest string // the artifact's digest; "" when publishing failed
	// Message says why publishing failed ("" when published); it never holds credentials.
	Message string
}

// publishOCI publishes, after the push, the folder of every site whose rendered commit has no artifact yet
// (o.Previous records which have one), with the site's attestation as a referrer. A site that fails keeps
// its Git output: only its OCI state records the failure. The error joins the sites' failures; it is
// permanent when every one of them is.
func publishOCI(ctx context.Context, tgt *source.Cache, plan *sitePlan, o SyncOptions) error {
	if o.Target.OCI == nil {
		return nil
	}
	var todo []*siteRun
	for _, r := range plan.runs {
		commit := r.state.RenderedCommit
		if r.path == "" || commit == "" {
			continue
		}
		if prev := o.Previous[r.name].OCI; prev != nil && prev.Commit == commit && prev.Digest != "" {
			r.state.OCI = prev
			continue
		}
		r.state.OCI = &OCIState{Commit: commit, Tag: ociartifact.Tag(r.name, commit)}
		todo = append(todo, r)
	}
	if len(todo) == 0 {
		return nil
	}
	pub, err := ociartifact.NewPublisher(*o.Target.OCI)
	if err != nil {
		for _, r := range todo {
			r.state.OCI.Message = err.Error()
		}
		return err
	}
	var mu sync.Mutex // one reader of the target's store at a time
	errs := make([]error, len(todo))
	sem := make(chan struct{}, o.Workers)
	var wg sync.WaitGroup
	for i, r := range todo {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer func() { <-sem; wg.Done() }()
			mu.Lock()
			site, err := ociSite(tgt, r)
			mu.Unlock()
			if err == nil {
				var p ociartifact.Published
				if p, err = pub.Publish(ctx, site); err == nil {
					r.state.OCI.Digest = p.Digest
					o.Logger.V(1).Info("published OCI artifact", "site", r.name, "tag", r.state.OCI.Tag,
						"digest", p.Digest)
					return
				}
			}
			errs[i] = fmt.Errorf("site %s: %w", r.name, err)
			r.state.OCI.Message = errs[i].Error()
		}()
	}
	wg.Wait()
	return joinFailures(errs)
}

// ociSite reads r's folder and attestation from its rendered commit.
func ociSite(tgt *source.Cache, r *siteRun) (ociartifact.Site, error) {
	site := ociartifact.Site{Name: r.name, Commit: r.state.RenderedCommit, Files: map[string][]byte{}}
	c, err := tgt.Repo().CommitObject(plumbing.NewHash(site.Commit))
	if err != nil {
		return site, fmt.Errorf("reading rendered commit %s: %w", site.Commit, err)
	}
	root, err := c.Tree()
	if err != nil {
		return site, fmt.Errorf("reading the tree of rendered commit %s: %w", site.Commit, err)
	}
	folder, err := root.Tree(r.path)
	if err != nil {
		return site, fmt.Errorf("reading folder %s of rendered commit %s: %w", r.path, site.Commit, err)
	}
	err = folder.Files().ForEach(func(f *object.File) error {
		s, err := f.Contents()
		site.Files[f.Name] = []byte(s)
		return err
	})
	if err != nil {
		return site, fmt.Errorf("reading folder %s of rendered commit %s: %w", r.path, site.Commit, err)
	}
	f, err := root.File(provenance.AttestationPath(r.name))
	if errors.Is(err, object.ErrFileNotFound) {
		return site, nil
	}
	if err == nil {
		var s string
		s, err = f.Contents()
		site.Provenance = []byte(s)
	}
	if err != nil {
		return site, fmt.Errorf("reading the attestation of %s in %s: %w", r.name, site.Commit, err)
	}
	return site, nil
}

// joinFailures joins the non-nil errs, permanent when each one is.
func joinFailures(errs []error) error {
	allPermanent := true
	var failed []error
	for _, err := range errs {
		if err != nil {
			failed = append(failed, err)
			allPermanent = allPermanent && permanent.Is(err)
		}
	}
	if len(failed) == 0 {
		return nil
	}
	err := fmt.Errorf("publishing OCI artifacts: %w", errors.Join(failed...))
	if allPermanent {
		return permanent.Error(err)
	}
	return err
}
