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
	"strings"
	"time"

	gitopsv1alpha1 "github.com/siteops/siteops/apis/gitops/v1alpha1"
)

// runStatus prints the SiteSyncs of a namespace (or one of them): revisions, conditions, one row per site
// (rendered commit, Argo CD's synced revision, sync status and health, since when) and the manager
// Rollout the person promoting an upgrade needs (phase, stable and preview images, shadow verdict).
func runStatus(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("status", "[--kubeconfig FILE] [-n NAMESPACE | -A] [NAME]", stderr)
	kubeconfig := fs.String("kubeconfig", "", "kubeconfig file (default: $KUBECONFIG, then ~/.kube/config)")
	namespace := fs.String("n", "", "namespace of the SiteSyncs (default: the kubeconfig context's)")
	all := fs.Bool("A", false, "SiteSyncs of every namespace")
	if err := parseOnly(fs, args); err != nil { // NAME is positional: not parseFlags, which refuses it
		return err
	}
	switch {
	case fs.NArg() > 1:
		return usageError{fmt.Sprintf("give at most one SiteSync NAME, not %d", fs.NArg())}
	case *all && fs.NArg() == 1:
		return usageError{"-A lists the SiteSyncs of every namespace: give no NAME with it"}
	}
	items, err := readSiteSyncs(ctx, *kubeconfig, *namespace, *all, fs.Arg(0))
	if err != nil {
		return err
	}
	return writeStatus(stdout, items, time.Now())
}

// writeStatus prints each SiteSync: revisions, one line per condition, one row per site (writeSites) with
// the site's manager Rollout as Argo CD reports it. now dates the sites' SINCE column.
func writeStatus(w io.Writer, items []gitopsv1alpha1.SiteSync, now time.Time) error {
	var b strings.Builder
	if len(items) == 0 {
		b.WriteString("no SiteSyncs\n")
	}
	for i, ss := range items {
		if i > 0 {
			b.WriteString("\n")
		}
		st := ss.Status
		fmt.Fprintf(&b, "SiteSync %s/%s  source %s  rendered %s", ss.Namespace, ss.Name, short(st.SourceRevision),
			short(st.RenderedRevision))
		if st.Delivered != "" {
			fmt.Fprintf(&b, "  %s %s", gitopsv1alpha1.DeliveryDelivered, st.Delivered)
		}
		b.WriteString("\n")
		for _, c := range st.Conditions {
			fmt.Fprintf(&b, "  %-9s %s=%s (%s) %s\n", "condition", c.Type, c.Status, c.Reason, oneLine(c.Message))
		}
		writeSites(&b, st.Sites, now)
		writeRollout(&b, st.Rollout, st.Sites, now)
		writeRecentHistory(&b, st.Rollout)
	}
	if _, err := io.WriteString(w, b.String()); err != nil {
		return fmt.Errorf("writing output: %w", err)
	}
	return nil
}

// short is a commit SHA's first 12 characters, or "-".
func short(sha string) string {
	if sha == "" {
		return "-"
	}
	return sha[:min(12, len(sha))]
}

func orNone(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// oneLine keeps a message on its table row.
func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }
