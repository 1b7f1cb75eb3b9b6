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
	"fmt"
	"io"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/siteops/siteops/gitops"
	"github.com/siteops/siteops/internal/version"
)

func runSites(args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("sites", "[--repo DIR] [--since REV]", stderr)
	repo := fs.String("repo", ".", "working copy (its Git root is used)")
	overlays := fs.String("overlays", gitops.DefaultOverlaysDir, "folder holding one folder per site")
	since := fs.String("since", "", "mark the sites whose inputs changed between REV and HEAD")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	c, err := gitops.OpenDir(*repo)
	if err != nil {
		return err
	}
	defer c.Close()
	sites, err := c.Sites(*overlays)
	if err != nil {
		return err
	}
	if *since == "" {
		var out strings.Builder
		for _, s := range sites {
			out.WriteString(s + "\n")
		}
		if _, err := io.WriteString(stdout, out.String()); err != nil {
			return fmt.Errorf("writing output: %w", err)
		}
		return nil
	}
	changed, err := gitops.ChangedPaths(c.Root(), *since, "HEAD")
	if err != nil {
		return err
	}
	affected, err := c.AffectedSites(*overlays, sites, changed)
	if err != nil {
		return err
	}
	var table strings.Builder
	table.WriteString("SITE\tCHANGED SINCE " + *since + "\n")
	for _, s := range sites {
		mark := "no"
		if slices.Contains(affected, s) {
			mark = "yes"
		}
		table.WriteString(s + "\t" + mark + "\n")
	}
	tw := tabwriter.NewWriter(stdout, 0, 4, 2, ' ', 0)
	if _, err := io.WriteString(tw, table.String()); err != nil {
		return fmt.Errorf("writing output: %w", err)
	}
	if err := tw.Flush(); err != nil {
		return fmt.Errorf("writing output: %w", err)
	}
	_, _ = fmt.Fprintf(stderr, "%d changed paths, %d of %d sites affected\n", len(changed), len(affected), len(sites))
	return nil
}

func runVersion(stdout io.Writer) error {
	_, err := fmt.Fprintf(stdout, "siteops %s\n", version.Version)
	return err
}
