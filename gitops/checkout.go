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
	"path"
	"path/filepath"
	"sync"

	git "github.com/go-git/go-git/v5"
	kusttypes "sigs.k8s.io/kustomize/api/types"

	"github.com/siteops/siteops/gitops/guard"
	"github.com/siteops/siteops/gitops/helmchart"
	"github.com/siteops/siteops/gitops/internal/tree"
	"github.com/siteops/siteops/gitops/source"
	"github.com/siteops/siteops/gitops/validate"
)

// Checkout is a read-only, guarded view of a source tree for the CLI: a working copy on disk or a fetched
// commit. Close it when done.
type Checkout struct {
	tree     tree.FS
	root     string // folder on disk, "" for a fetched commit
	Revision string // commit SHA, "" for a working copy that is not a Git repository
	release  func()
	// Validation says what rendered objects are checked against, as a SiteSync's spec.validation does; the
	// zero value enforces the schemas of the default Kubernetes version and the CRDs of the checkout.
	Validation ValidationOptions
	// Policy names the admission policies rendered objects must pass, as a SiteSync's spec.policy does.
	Policy  PolicyOptions
	schemas *validate.Schemas // the Syncer's, or the checkout's own, made on first use
}

// OpenDir opens the working copy containing dir: the root is the Git work tree holding dir (or dir itself
// when it is not in a Git repository). Uncommitted changes are what renders.
func OpenDir(dir string) (*Checkout, error) {
	root, err := filepath.Abs(dir)
	if err != nil {
		return nil, fmt.Errorf("resolving %s: %w", dir, err)
	}
	c := &Checkout{release: func() {}}
	if repo, err := git.PlainOpenWithOptions(root, &git.PlainOpenOptions{DetectDotGit: true}); err == nil {
		if wt, err := repo.Worktree(); err == nil {
			root = wt.Filesystem.Root()
		}
		if head, err := repo.Head(); err == nil {
			c.Revision = head.Hash().String()
		}
	} else if !errors.Is(err, git.ErrRepositoryNotExists) {
		return nil, fmt.Errorf("opening the repository at %s: %w", dir, err)
	}
	t, err := tree.NewDisk(root)
	if err != nil {
		return nil, err
	}
	c.tree, c.root = t, t.Root()
	return c, nil
}

// FetchCheckout fetches spec into workDir (a cache reused across calls) and opens the commit it names.
func (sy *Syncer) FetchCheckout(ctx context.Context, workDir string, spec SourceSpec) (*Checkout, error) {
	src, err := sy.caches.Fetch(ctx, workDir, spec)
	if err != nil {
		return nil, err
	}
	return &Checkout{tree: tree.NewGit(src.Cache.Repo().Storer, src.Tree), Revision: src.Commit.Hash.String(),
		release: src.Release, schemas: sy.schemas}, nil
}

// FetchBranch opens the head of branch of url (with auth), or returns ok=false when the branch does not exist.
func (sy *Syncer) FetchBranch(ctx context.Context, workDir, url, branch string,
	auth *Auth) (c *Checkout, ok bool, err error) {
	if err := source.ValidateURL(url); err != nil {
		return nil, false, err
	}
	method, err := source.AuthMethod(url, auth, workDir)
	if err != nil {
		return nil, false, err
	}
	ca, err := source.CABundle(auth)
	if err != nil {
		return nil, false, err
	}
	cache, err := sy.caches.Open(workDir, "tgt", url, method, ca)
	if err != nil {
		return nil, false, err
	}
	st, err := cache.FetchBranch(ctx, branch)
	if err != nil || st.Tree == nil {
		cache.Release()
		return nil, false, source.NewRedactor(auth).Error(err)
	}
	return &Checkout{tree: tree.NewGit(cache.Repo().Storer, st.Tree), Revision: st.Head.String(),
		release: cache.Release}, true, nil
}

// Close releases the checkout's cache.
func (c *Checkout) Close() { c.release() }

// Root is the folder of a working copy ("" for a fetched commit).
func (c *Checkout) Root() string { return c.root }

// Rel turns a folder on disk into a path relative to the working copy's root.
func (c *Checkout) Rel(dir string) (string, error) {
	if c.root == "" {
		return tree.CleanRel(filepath.ToSlash(dir)), nil
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", fmt.Errorf("resolving %s: %w", dir, err)
	}
	if resolved, err := filepath.EvalSymlinks(abs); err == nil {
		abs = resolved
	}
	rel, err := filepath.Rel(c.root, abs)
	if err != nil || tree.EscapesRoot(tree.CleanRel(filepath.ToSlash(rel))) {
		return "", fmt.Errorf("%s is outside the checkout %s", dir, c.root)
	}
	return tree.CleanRel(filepath.ToSlash(rel)), nil
}

// Sites lists the sites under overlaysDir ("" = "overlays").
func (c *Checkout) Sites(overlaysDir string) ([]string, error) {
	return guard.DiscoverSites(c.tree, orDefault(overlaysDir, DefaultOverlaysDir))
}

// ReadFile reads a file of the checkout (symlinks followed inside it); ok is false when it does not exist.
func (c *Checkout) ReadFile(p string) (content []byte, ok bool, err error) {
	resolved, e, err := tree.Resolve(c.tree, p)
	if err != nil {
		return nil, false, err
	}
	if e.Kind != tree.File {
		return nil, false, nil
	}
	b, err := c.tree.ReadFile(resolved)
	return b, err == nil, err
}

// AffectedSites returns the sites whose inputs contain one of the changed paths.
func (c *Checkout) AffectedSites(overlaysDir string, sites, changed []string) ([]string, error) {
	return guard.AffectedSites(c.tree, orDefault(overlaysDir, DefaultOverlaysDir), sites, changed)
}

// RenderedSite is the outcome of rendering one kustomization of a Checkout.
type RenderedSite struct {
	Name        string // site name, or the folder for RenderDir
	Dir         string // kustomization folder, relative to the root
	YAML        []byte
	InputDigest string
	Warnings    []string
	Err         error // guard, kustomize, validation or policy error; the site failed
	// Policy is what the admission policies made of the output; nil when none were checked.
	Policy *PolicyResult
}

// RenderDir renders the kustomization in folder dir (relative to the root) with optional image overrides.
func (c *Checkout) RenderDir(ctx context.Context, dir string, images []kusttypes.Image) RenderedSite {
	run := &siteRun{name: guard.DisplayDir(tree.CleanRel(dir)), dir: tree.CleanRel(dir)}
	return c.render(ctx, []*siteRun{run}, 1, images, nil)[0]
}

// RenderSites renders sites of overlaysDir with workers builds at a time, calling progress (if set) as each
// finishes, and returns them in order.
func (c *Checkout) RenderSites(ctx context.Context, overlaysDir string, sites []string, workers int,
	progress func(RenderedSite)) []RenderedSite {
	return c.render(ctx, siteRuns(orDefault(overlaysDir, DefaultOverlaysDir), sites), workers, nil, progress)
}

// render takes runs through buildSites, the path Sync takes too, and reports each site to progress: the
// sites that failed before rendering first, in order, then each rendered one as its build finishes.
func (c *Checkout) render(ctx context.Context, runs []*siteRun, workers int, images []kusttypes.Image,
	progress func(RenderedSite)) []RenderedSite {
	out := make([]RenderedSite, len(runs))
	index := make(map[*siteRun]int, len(runs))
	for i, r := range runs {
		index[r] = i
	}
	var mu sync.Mutex
	report := func(r *siteRun, yaml []byte) {
		mu.Lock()
		defer mu.Unlock()
		i := index[r]
		out[i] = renderedSite(r, yaml)
		if progress != nil {
			progress(out[i])
		}
	}
	if c.schemas == nil {
		c.schemas = validate.NewSchemas()
	}
	check, checkErr := newChecker(c.schemas, c.tree, c.Validation)
	policies, policyErr := newPolicyGate(c.tree, c.Policy, nil)
	if checkErr == nil {
		checkErr = policyErr
	}
	b := builder{guard: func(dir string) (*guard.Inputs, error) { return guard.Site(c.tree, dir) },
		workers: workers, images: images, check: check, policy: policies, charts: helmchart.New(),
		version: c.Validation.kubeVersion}
	_ = buildSites(ctx, runs, b, func() error {
		if checkErr != nil { // the validation's or the policies' options are wrong: no site renders
			for _, r := range runs {
				if r.invalid == nil && r.guardErr == nil {
					r.guardErr = checkErr
				}
			}
		}
		for _, r := range runs {
			if r.invalid != nil || r.guardErr != nil {
				report(r, nil)
			}
		}
		return nil
	}, func(r *siteRun, yaml []byte) error {
		report(r, yaml)
		return nil
	})
	return out
}

// renderedSite is what the CLI sees of a run.
func renderedSite(r *siteRun, yaml []byte) RenderedSite {
	s := RenderedSite{Name: r.name, Dir: r.dir, YAML: yaml, Err: r.failed(), Policy: r.policy}
	if r.in != nil {
		s.Warnings = sortedWarnings(append(append([]string(nil), r.in.Warnings...), r.checked...))
		if r.guardErr == nil {
			s.InputDigest = r.in.Digest
		}
	}
	return s
}

func orDefault(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

// ListFiles lists the files under folder dir of the checkout (recursively, symlinks not followed), sorted.
func (c *Checkout) ListFiles(dir string) ([]string, error) {
	resolved, e, err := tree.Resolve(c.tree, dir)
	if err != nil || e.Kind != tree.Dir {
		return nil, err
	}
	var out []string
	var walk func(p string) error
	walk = func(p string) error {
		names, err := c.tree.ReadDir(p)
		if err != nil {
			return err
		}
		for _, n := range names {
			q := path.Join(p, n)
			e, err := c.tree.Lstat(q)
			if err != nil {
				return err
			}
			if e.Kind == tree.Dir {
				if err := walk(q); err != nil {
					return err
				}
				continue
			}
			out = append(out, q)
		}
		return nil
	}
	return out, walk(resolved)
}
