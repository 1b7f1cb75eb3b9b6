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

package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	kusttypes "sigs.k8s.io/kustomize/api/types"

	"github.com/siteops/siteops/gitops"
	"github.com/siteops/siteops/gitops/render"
)

// errSitesFailed reports that at least one site failed (already explained on stderr).
var errSitesFailed = errors.New("sites failed")

// imageFlags collects repeated --image flags.
type imageFlags []kusttypes.Image

func (f *imageFlags) String() string { return fmt.Sprint(*f) }
func (f *imageFlags) Set(s string) error {
	im, err := render.ParseImage(s)
	if err != nil {
		return err
	}
	*f = append(*f, im)
	return nil
}

func runRender(ctx context.Context, sy *gitops.Syncer, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("render", "[--repo DIR|URL] [--ref REF] [--site S] [--out DIR] | --dir DIR [--image name=ref]...",
		stderr)
	repo := fs.String("repo", ".", "working copy (its Git root is used) or Git URL to render")
	ref := fs.String("ref", "", "branch, tag or SHA to render when --repo is a URL (default: the default branch)")
	site := fs.String("site", "", "render only this site and print it to stdout")
	out := fs.String("out", "", "write every site (or --site) to DIR/<path>/"+gitops.ManifestFile)
	overlays := fs.String("overlays", gitops.DefaultOverlaysDir, "folder holding one folder per site")
	pathTemplate := fs.String("path-template", gitops.DefaultPathTemplate, "folder of a site under --out")
	dir := fs.String("dir", "", "render this kustomization folder instead of sites (stdout)")
	workers := fs.Int("workers", gitops.DefaultWorkers, "sites rendered at a time")
	var images imageFlags
	fs.Var(&images, "image", "image override name=newName[:tag][@digest] (with --dir; repeatable)")
	vf := addValidationFlags(fs)
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	checks, err := vf.options()
	if err != nil {
		return err
	}
	if *dir != "" {
		if *site != "" || *out != "" {
			_, _ = fmt.Fprintln(stderr, "siteops render: --dir cannot be combined with --site or --out")
			return errUsage
		}
		return renderDir(ctx, *dir, images, checks, stdout, stderr)
	}
	if len(images) > 0 {
		_, _ = fmt.Fprintln(stderr, "siteops render: --image needs --dir")
		return errUsage
	}
	if *site == "" && *out == "" {
		_, _ = fmt.Fprintln(stderr, "siteops render: give --site S (print one site) or --out DIR (write every site)")
		fs.Usage()
		return errUsage
	}
	c, err := openRepo(ctx, sy, *repo, *ref)
	if err != nil {
		return err
	}
	defer c.Close()
	checks.apply(c)
	sites := []string{*site}
	if *site == "" {
		if sites, err = c.Sites(*overlays); err != nil {
			return err
		}
	}
	restore := quietStderr()
	start := time.Now()
	results := c.RenderSites(ctx, *overlays, sites, *workers, func(r gitops.RenderedSite) {
		reportSite(stderr, r)
	})
	restore()
	failed := 0
	for _, r := range results {
		if r.Err != nil {
			failed++
			continue
		}
		if *out == "" {
			if _, err := stdout.Write(r.YAML); err != nil {
				return fmt.Errorf("writing output: %w", err)
			}
			continue
		}
		if err := writeSite(*out, *pathTemplate, r); err != nil {
			return err
		}
	}
	_, _ = fmt.Fprintf(stderr, "rendered %d of %d sites in %s\n", len(results)-failed, len(results),
		time.Since(start).Round(time.Millisecond))
	if failed > 0 {
		return errSitesFailed
	}
	return nil
}

// renderDir renders one kustomization folder to stdout.
func renderDir(ctx context.Context, dir string, images []kusttypes.Image, checks checkOptions,
	stdout, stderr io.Writer) error {
	if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
		return usageError{fmt.Sprintf("--dir %s: no such folder", dir)}
	}
	c, err := gitops.OpenDir(dir)
	if err != nil {
		return err
	}
	defer c.Close()
	checks.apply(c)
	rel, err := c.Rel(dir)
	if err != nil {
		return err
	}
	restore := quietStderr()
	r := c.RenderDir(ctx, rel, images)
	restore()
	for _, w := range r.Warnings {
		_, _ = fmt.Fprintf(stderr, "warning: %s\n", w)
	}
	reportPolicy(stderr, dir, r.Policy)
	if r.Err != nil {
		_, _ = fmt.Fprintf(stderr, "FAILED %s: %v\n", dir, r.Err)
		return errSitesFailed
	}
	for _, im := range images {
		if want := im.NewName; want != "" && !strings.Contains(string(r.YAML), "image: "+want) {
			_, _ = fmt.Fprintf(stderr, "warning: --image %s matched no container image (kustomize matches the full image name, "+
				"e.g. ghcr.io/org/app=...)\n", im.Name)
		}
	}
	if _, err := stdout.Write(r.YAML); err != nil {
		return fmt.Errorf("writing output: %w", err)
	}
	return nil
}

// reportSite prints one site's outcome on stderr (progress).
func reportSite(stderr io.Writer, r gitops.RenderedSite) {
	for _, w := range r.Warnings {
		_, _ = fmt.Fprintf(stderr, "warning: %s: %s\n", r.Name, w)
	}
	reportPolicy(stderr, r.Name, r.Policy)
	if r.Err != nil {
		_, _ = fmt.Fprintf(stderr, "FAILED %s: %v\n", r.Name, r.Err)
		return
	}
	_, _ = fmt.Fprintf(stderr, "ok     %s (%d objects)\n", r.Name, strings.Count("\n"+string(r.YAML), "\n---\n")+1)
}

// writeSite writes a site's manifest under out, as it would sit on the rendered branch.
func writeSite(out, pathTemplate string, r gitops.RenderedSite) error {
	p, err := gitops.SitePath(pathTemplate, r.Name)
	if err != nil {
		return err
	}
	dir := filepath.Join(out, filepath.FromSlash(p))
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("creating %s: %w", dir, err)
	}
	file := filepath.Join(dir, gitops.ManifestFile)
	if err := os.WriteFile(file, r.YAML, 0o644); err != nil {
		return fmt.Errorf("writing %s: %w", file, err)
	}
	return nil
}

// reportPolicy prints what the admission policies made of a site's output on stderr: the findings that did
// not stop it (warned, audited, skipped) and the counts.
func reportPolicy(stderr io.Writer, name string, p *gitops.PolicyResult) {
	if p == nil {
		return
	}
	for _, f := range p.Findings {
		_, _ = fmt.Fprintf(stderr, "policy: %s: %s\n", name, f)
	}
	_, _ = fmt.Fprintf(stderr, "policy: %s: %s\n", name, p.Summary)
}
