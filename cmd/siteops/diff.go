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
	"fmt"
	"io"
	"path"
	"strings"

	git "github.com/go-git/go-git/v5"
	"github.com/pmezard/go-difflib/difflib"

	"github.com/siteops/siteops/gitops"
)

func runDiff(ctx context.Context, sy *gitops.Syncer, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("diff", "--site S [--repo DIR] [--target-url URL] [--branch B]\n"+
		"       siteops diff --base REV [--head REV] [--repo DIR] [--format text|markdown] [--exit-code]", stderr)
	repo := fs.String("repo", ".", "working copy to render (its Git root is used)")
	site := fs.String("site", "", "site to compare with the rendered branch")
	revs := revisionFlags(fs)
	overlays := fs.String("overlays", gitops.DefaultOverlaysDir, "folder holding one folder per site")
	targetURL := fs.String("target-url", "", "repository of the rendered branch (default: the origin remote of --repo)")
	branch := fs.String("branch", gitops.DefaultTargetBranch, "rendered branch")
	pathTemplate := fs.String("path-template", gitops.DefaultPathTemplate, "folder of a site on the rendered branch")
	vf := addValidationFlags(fs)
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	checks, err := vf.options()
	if err != nil {
		return err
	}
	if revs.set() {
		if *site != "" {
			_, _ = fmt.Fprintln(stderr, "siteops diff: --site compares with the rendered branch, "+
				"--base/--head compare two revisions: use one")
			fs.Usage()
			return errUsage
		}
		return diffRevisions(ctx, *repo, *overlays, revs, checks, stdout, stderr)
	}
	if *site == "" {
		_, _ = fmt.Fprintln(stderr, "siteops diff: --site (or --base) is required")
		fs.Usage()
		return errUsage
	}
	sitePath, err := gitops.SitePath(*pathTemplate, *site)
	if err != nil {
		return err
	}
	c, err := gitops.OpenDir(*repo)
	if err != nil {
		return err
	}
	defer c.Close()
	checks.apply(c)
	if *targetURL == "" {
		if *targetURL, err = originURL(c.Root()); err != nil {
			return err
		}
	}
	restore := quietStderr()
	r := c.RenderSites(ctx, *overlays, []string{*site}, 1, nil)[0]
	restore()
	reportSite(stderr, r)
	if r.Err != nil {
		return errSitesFailed
	}
	cache, err := cacheDir()
	if err != nil {
		return err
	}
	auth, err := authFromEnv()
	if err != nil {
		return err
	}
	target, ok, err := sy.FetchBranch(ctx, cache, *targetURL, *branch, auth)
	if err != nil {
		return sshKeyHint(err)
	}
	current, rev, stale := "", "(branch missing)", []string(nil)
	file := path.Join(sitePath, gitops.ManifestFile)
	if ok {
		defer target.Close()
		rev = target.Revision[:12]
		if b, found, err := target.ReadFile(file); err != nil {
			return err
		} else if found {
			current = string(b)
		}
		files, err := target.ListFiles(sitePath)
		if err != nil {
			return err
		}
		for _, f := range files {
			if f != file {
				stale = append(stale, f)
			}
		}
	}
	text, err := difflib.GetUnifiedDiffString(difflib.UnifiedDiff{
		A: difflib.SplitLines(current), B: difflib.SplitLines(string(r.YAML)),
		FromFile: "a/" + file + " (" + *branch + " " + rev + ")", ToFile: "b/" + file + " (working copy)",
		Context: 3,
	})
	if err != nil {
		return fmt.Errorf("diffing: %w", err)
	}
	var out strings.Builder
	out.WriteString(text)
	for _, f := range stale {
		out.WriteString("deleted: " + f + " (not written by siteops, would be removed)\n")
	}
	if _, err := io.WriteString(stdout, out.String()); err != nil {
		return fmt.Errorf("writing the diff: %w", err)
	}
	if text == "" && len(stale) == 0 {
		_, _ = fmt.Fprintf(stderr, "no changes for site %s on %s\n", *site, *branch)
	}
	return nil
}

// originURL is the URL of the origin remote of the repository at root.
func originURL(root string) (string, error) {
	repo, err := git.PlainOpen(root)
	if err != nil {
		return "", fmt.Errorf("--target-url is not set and %s is not a Git repository: %w", root, err)
	}
	remote, err := repo.Remote("origin")
	if err != nil || len(remote.Config().URLs) == 0 {
		return "", fmt.Errorf("--target-url is not set and %s has no origin remote", root)
	}
	u := remote.Config().URLs[0]
	if !strings.Contains(u, "://") && !strings.Contains(u, "@") {
		u = "file://" + u // a local path remote
	}
	return u, nil
}
