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
	"strings"
	"text/tabwriter"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	gitopsv1alpha1 "github.com/siteops/siteops/apis/gitops/v1alpha1"
)

// rolloutHistory is one SiteSync's status.rollout.history, as `siteops rollout history -o json` prints it.
type rolloutHistory struct {
	Namespace string                         `json:"namespace"`
	Name      string                         `json:"name"`
	History   []gitopsv1alpha1.RolloutRecord `json:"history"`
}

// runRolloutHistory prints the rollout history of one SiteSync, or of every SiteSync of the namespace: a table,
// or with -o json the records as they are in status.rollout.history.
func runRolloutHistory(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("rollout history", "[--kubeconfig FILE] [-n NAMESPACE] [-o table|json] [NAME]", stderr)
	kubeconfig := fs.String("kubeconfig", "", "kubeconfig file (default: $KUBECONFIG, then ~/.kube/config)")
	namespace := fs.String("n", "", "namespace of the SiteSyncs (default: the kubeconfig context's)")
	output := fs.String("o", "table", "output format: table or json")
	if err := parseOnly(fs, args); err != nil { // NAME is positional
		return err
	}
	switch {
	case fs.NArg() > 1:
		return usageError{fmt.Sprintf("give at most one SiteSync NAME, not %d", fs.NArg())}
	case *output != "table" && *output != "json":
		return usageError{fmt.Sprintf("-o %q: want table or json", *output)}
	}
	items, err := readSiteSyncs(ctx, *kubeconfig, *namespace, false, fs.Arg(0))
	if err != nil {
		return err
	}
	if *output == "json" {
		return writeHistoryJSON(stdout, items)
	}
	return writeHistoryTable(stdout, items)
}

// historyOf is the SiteSync's rollout history, newest first; nil without a rollout.
func historyOf(ss gitopsv1alpha1.SiteSync) []gitopsv1alpha1.RolloutRecord {
	if ss.Status.Rollout == nil {
		return nil
	}
	return ss.Status.Rollout.History
}

// writeHistoryJSON prints one object per SiteSync with its history records.
func writeHistoryJSON(w io.Writer, items []gitopsv1alpha1.SiteSync) error {
	out := make([]rolloutHistory, 0, len(items))
	for _, ss := range items {
		h := historyOf(ss)
		if h == nil {
			h = []gitopsv1alpha1.RolloutRecord{}
		}
		out = append(out, rolloutHistory{Namespace: ss.Namespace, Name: ss.Name, History: h})
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	if err := enc.Encode(out); err != nil {
		return fmt.Errorf("writing output: %w", err)
	}
	return nil
}

// writeHistoryTable prints, per SiteSync, one row per recorded revision (outcome, start, end, rendered commits,
// why it halted) and under it one row per wave (start, finish, analysis, who approved or overrode).
func writeHistoryTable(w io.Writer, items []gitopsv1alpha1.SiteSync) error {
	var b strings.Builder
	if len(items) == 0 {
		b.WriteString("no SiteSyncs\n")
	}
	for i, ss := range items {
		if i > 0 {
			b.WriteString("\n")
		}
		fmt.Fprintf(&b, "SiteSync %s/%s\n", ss.Namespace, ss.Name)
		h := historyOf(ss)
		if len(h) == 0 {
			b.WriteString("  no rollout recorded\n")
			continue
		}
		tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
		_, _ = fmt.Fprintln(tw, "  REVISION\tWAVE\tOUTCOME\tSTARTED\tENDED\tDETAILS")
		for _, e := range h {
			details := []string{}
			if len(e.RenderedCommits) > 0 {
				commits := make([]string, len(e.RenderedCommits))
				for j, c := range e.RenderedCommits {
					commits[j] = short(c)
				}
				details = append(details, "rendered "+strings.Join(commits, ","))
			}
			if e.Message != "" {
				details = append(details, oneLine(e.Message))
			}
			_, _ = fmt.Fprintf(tw, "  %s\t-\t%s\t%s\t%s\t%s\n", short(e.Revision), outcomeOf(e), stampOf(e.StartedAt),
				stampOf(e.EndedAt), orNone(strings.Join(details, "; ")))
			for _, wr := range e.Waves {
				state, ended := waveEnd(e, wr)
				_, _ = fmt.Fprintf(tw, "  \t%s\t%s\t%s\t%s\t%s\n", wr.Name, state, stampOf(wr.StartedAt),
					stampOf(ended), orNone(waveDetails(wr)))
			}
		}
		_ = tw.Flush() // writes to a strings.Builder
	}
	if _, err := io.WriteString(w, b.String()); err != nil {
		return fmt.Errorf("writing output: %w", err)
	}
	return nil
}

// waveEnd is how a wave of record e ended and when: finished when every changed site of it was delivered;
// else, once the revision's rollout ended (Halted, Reverted, Superseded), that outcome at the record's end;
// else started, with no end yet.
func waveEnd(e gitopsv1alpha1.RolloutRecord, wr gitopsv1alpha1.WaveRecord) (string, *metav1.Time) {
	switch {
	case wr.FinishedAt != nil:
		return "finished", wr.FinishedAt
	case e.Outcome != "":
		return string(e.Outcome), e.EndedAt
	}
	return "started", nil
}

// waveDetails says what the history knows of a wave besides its times: its analysis and who let it go.
func waveDetails(wr gitopsv1alpha1.WaveRecord) string {
	var out []string
	if a := wr.Analysis; a != nil {
		s := fmt.Sprintf("analysis %s %s", a.Run, a.Phase)
		if a.Metric != "" {
			s += ": " + a.Metric
		}
		if a.Message != "" {
			s += " " + oneLine(a.Message)
		}
		if a.AcceptedBy != "" {
			s += ", accepted by " + a.AcceptedBy
		}
		if a.RejectedBy != "" {
			s += ", rejected by " + a.RejectedBy
		}
		out = append(out, s)
	}
	if wr.ApprovedBy != "" {
		out = append(out, "approved by "+wr.ApprovedBy)
	}
	if wr.FreezeOverriddenBy != "" {
		out = append(out, fmt.Sprintf("freeze overridden by %s (%s)", wr.FreezeOverriddenBy,
			oneLine(wr.FreezeOverrideReason)))
	}
	return strings.Join(out, "; ")
}

// outcomeOf is the record's outcome, or InProgress while its rollout goes on.
func outcomeOf(e gitopsv1alpha1.RolloutRecord) string {
	if e.Outcome == "" {
		return "InProgress"
	}
	return string(e.Outcome)
}

// stampOf prints a history time in UTC, or "-".
func stampOf(t *metav1.Time) string {
	if t == nil {
		return "-"
	}
	return t.UTC().Format(time.RFC3339)
}
