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
	"encoding/json"
	"fmt"
	"io"
	"path/filepath"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/siteops/siteops/gitops"
	"github.com/siteops/siteops/gitops/ledger"
	"github.com/siteops/siteops/internal/sitesyncledger"
)

// ledgerEntry is one SiteSync's ledger in `siteops ledger -o json`.
type ledgerEntry struct {
	Namespace string        `json:"namespace"`
	Name      string        `json:"name"`
	Ledger    ledger.Report `json:"ledger"`
}

// runLedger prints the delivery ledger of each SiteSync (or of one): the four DORA metrics over --window,
// from the SiteSync's status.history and its rendered branch, fetched from the target repository.
func runLedger(ctx context.Context, sy *gitops.Syncer, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("ledger",
		"[--kubeconfig FILE] [-n NAMESPACE | -A] [--window 30d] [-o table|json] [NAME]", stderr)
	kubeconfig := fs.String("kubeconfig", "", "kubeconfig file (default: $KUBECONFIG, then ~/.kube/config)")
	namespace := fs.String("n", "", "namespace of the SiteSyncs (default: the kubeconfig context's)")
	all := fs.Bool("A", false, "SiteSyncs of every namespace")
	window := fs.String("window", "30d", "the period the ledger covers, ending now: days (30d) or a duration (12h)")
	output := fs.String("o", "table", "output: table or json")
	targetURL := fs.String("target-url", "", "repository of the rendered branch (default: the SiteSync's target)")
	if err := parseOnly(fs, args); err != nil {
		return err
	}
	span, err := sitesyncledger.ParseWindow(*window)
	switch {
	case err != nil:
		return usageError{"--" + err.Error()}
	case *output != "table" && *output != "json":
		return usageError{fmt.Sprintf("-o %q: want table or json", *output)}
	case fs.NArg() > 1:
		return usageError{fmt.Sprintf("give at most one SiteSync NAME, not %d", fs.NArg())}
	case *all && fs.NArg() == 1:
		return usageError{"-A reads the SiteSyncs of every namespace: give no NAME with it"}
	}
	items, err := readSiteSyncs(ctx, *kubeconfig, *namespace, *all, fs.Arg(0))
	if err != nil {
		return err
	}
	src, err := renderedSource("ledger", *targetURL)
	if err != nil {
		return err
	}
	now := time.Now()
	w := ledger.Window{From: now.Add(-span), To: now}
	entries := make([]ledgerEntry, 0, len(items))
	for i := range items {
		ss := &items[i]
		rep, err := sitesyncledger.Read(ctx, sy, ss, src, "", w)
		if err != nil {
			return fmt.Errorf("SiteSync %s/%s: %w", ss.Namespace, ss.Name, sshKeyHint(err))
		}
		entries = append(entries, ledgerEntry{ss.Namespace, ss.Name, rep})
	}
	if *output == "json" {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(entries); err != nil {
			return fmt.Errorf("writing output: %w", err)
		}
		return nil
	}
	return writeLedger(stdout, entries)
}

// writeLedger prints each SiteSync's four metrics, then one row per site.
func writeLedger(w io.Writer, entries []ledgerEntry) error {
	var b strings.Builder
	if len(entries) == 0 {
		b.WriteString("no SiteSyncs\n")
	}
	for i, e := range entries {
		if i > 0 {
			b.WriteString("\n")
		}
		r := e.Ledger
		fmt.Fprintf(&b, "SiteSync %s/%s  %s → %s\n", e.Namespace, e.Name, r.From.UTC().Format(time.RFC3339),
			r.To.UTC().Format(time.RFC3339))
		fmt.Fprintf(&b, "  deployment frequency  %.2f/day (%d deployments)\n", r.DeploymentsPerDay, r.Deployments)
		fmt.Fprintf(&b, "  change failure rate   %s (%d failed)\n", percent(r.ChangeFailureRate), r.FailedChanges)
		fmt.Fprintf(&b, "  lead time for changes %s\n", durations(r.LeadTime, "changes"))
		fmt.Fprintf(&b, "  time to restore       %s\n", durations(r.TimeToRestore, "restores"))
		if len(r.Sites) == 0 {
			continue
		}
		tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
		_, _ = fmt.Fprintln(tw, "  SITE\tDEPLOYMENTS\tPER DAY\tFAILED\tFAILURE RATE")
		for _, s := range r.Sites {
			_, _ = fmt.Fprintf(tw, "  %s\t%d\t%.2f\t%d\t%s\n", s.Name, s.Deployments, s.DeploymentsPerDay,
				s.FailedChanges, percent(s.ChangeFailureRate))
		}
		_ = tw.Flush()
	}
	if _, err := io.WriteString(w, b.String()); err != nil {
		return fmt.Errorf("writing output: %w", err)
	}
	return nil
}

func percent(f float64) string { return strconv.FormatFloat(100*f, 'f', -1, 64) + "%" }

// durations is "median M, mean A, max X (N what)", or "- (0 what)".
func durations(d ledger.Durations, what string) string {
	if d.Count == 0 {
		return fmt.Sprintf("- (0 %s)", what)
	}
	s := func(secs float64) time.Duration { return time.Duration(secs * float64(time.Second)).Round(time.Second) }
	return fmt.Sprintf("median %s, mean %s, max %s (%d %s)", s(d.MedianSeconds), s(d.MeanSeconds),
		s(d.MaxSeconds), d.Count, what)
}

// renderedSource is where a command reads the rendered branches from: the cache folder sub, Git credentials
// from the environment (authFromEnv), and targetURL when it is set.
func renderedSource(sub, targetURL string) (sitesyncledger.Source, error) {
	dir, err := cacheDir()
	if err != nil {
		return sitesyncledger.Source{}, err
	}
	auth, err := authFromEnv()
	if err != nil {
		return sitesyncledger.Source{}, err
	}
	return sitesyncledger.Source{WorkDir: filepath.Join(dir, sub), Auth: auth, TargetURL: targetURL}, nil
}
