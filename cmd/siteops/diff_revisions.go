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
	"flag"
	"fmt"
	"io"
	"sort"

	"github.com/siteops/siteops/gitops"
	"github.com/siteops/siteops/gitops/sitediff"
)

// errChanges is returned by `diff --exit-code` when a site changes (exit code 1, like `git diff --exit-code`).
var errChanges = errors.New("sites change")

// revisionOptions are the flags of `siteops diff --base REV --head REV`.
type revisionOptions struct {
	base, head, format *string
	exitCode           *bool
	fs                 *flag.FlagSet
}

func revisionFlags(fs *flag.FlagSet) revisionOptions {
	return revisionOptions{
		base:     fs.String("base", "", "compare every site as rendered at this revision (e.g. origin/main) ..."),
		head:     fs.String("head", "", "... with this revision (default HEAD)"),
		format:   fs.String("format", "text", "output of --base/--head: text, or markdown for a pull request comment"),
		exitCode: fs.Bool("exit-code", false, "with --base: exit with 1 when a site changes, 0 when none does"),
		fs:       fs,
	}
}

// set reports whether the revision mode was asked for.
func (o revisionOptions) set() bool { return *o.base != "" || *o.head != "" }

// diffRevisions renders every site of the repository at --base and at --head and prints which sites change
// and, per site, the objects added, removed and changed. A site that fails to render at either revision is
// reported and makes the command fail.
func diffRevisions(ctx context.Context, repo, overlays string, o revisionOptions, checks checkOptions,
	stdout, stderr io.Writer) error {
	if *o.base == "" {
		_, _ = fmt.Fprintln(stderr, "siteops diff: --head needs --base")
		o.fs.Usage()
		return errUsage
	}
	if *o.head == "" {
		*o.head = "HEAD"
	}
	format := func(d sitediff.SitesDiff) string { return d.Text() }
	switch *o.format {
	case "text":
	case "markdown", "md":
		format = func(d sitediff.SitesDiff) string { return d.Markdown() }
	default:
		_, _ = fmt.Fprintf(stderr, "siteops diff: --format %q: want text or markdown\n", *o.format)
		return errUsage
	}
	base, err := renderRevision(ctx, repo, *o.base, overlays, checks)
	if err != nil {
		return err
	}
	head, err := renderRevision(ctx, repo, *o.head, overlays, checks)
	if err != nil {
		return err
	}
	d, err := sitediff.DiffSites(*o.base, *o.head, base, head)
	if err != nil {
		return err
	}
	if _, err := io.WriteString(stdout, format(d)); err != nil {
		return fmt.Errorf("writing the diff: %w", err)
	}
	switch {
	case len(d.Failed()) > 0:
		_, _ = fmt.Fprintf(stderr, "siteops diff: %d %s failed to render: %v\n", len(d.Failed()),
			map[bool]string{true: "site", false: "sites"}[len(d.Failed()) == 1], d.Failed())
		return errSitesFailed
	case *o.exitCode && d.Changed():
		return errChanges
	}
	return nil
}

// renderRevision renders every site of the repository at rev, by site name.
func renderRevision(ctx context.Context, repo, rev, overlays string,
	checks checkOptions) (map[string]sitediff.SiteOutput, error) {
	c, err := gitops.OpenRevision(repo, rev)
	if err != nil {
		return nil, err
	}
	defer c.Close()
	checks.apply(c)
	sites, err := c.Sites(overlays)
	if err != nil {
		return nil, fmt.Errorf("listing the sites at %s: %w", rev, err)
	}
	sort.Strings(sites)
	restore := quietStderr()
	rendered := c.RenderSites(ctx, overlays, sites, 2, nil)
	restore()
	out := make(map[string]sitediff.SiteOutput, len(rendered))
	for _, r := range rendered {
		out[r.Name] = sitediff.SiteOutput{YAML: r.YAML, Err: r.Err}
	}
	return out, nil
}
