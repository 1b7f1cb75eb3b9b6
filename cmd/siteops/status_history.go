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
	"strings"
	"text/tabwriter"

	gitopsv1alpha1 "github.com/siteops/siteops/apis/gitops/v1alpha1"
)

// recentHistory is how many revisions of status.rollout.history `siteops status` shows; `siteops rollout
// history` prints them all.
const recentHistory = 3

// writeRecentHistory prints the last revisions the rollout recorded, one line each: revision, outcome, when it
// started and ended, the waves it reached and why it halted. Nothing is printed without a history.
func writeRecentHistory(b *strings.Builder, ro *gitopsv1alpha1.RolloutStatus) {
	if ro == nil || len(ro.History) == 0 {
		return
	}
	tw := tabwriter.NewWriter(b, 0, 0, 2, ' ', 0)
	_, _ = fmt.Fprintln(tw, "  HISTORY\tOUTCOME\tSTARTED\tENDED\tWAVES\tMESSAGE")
	for _, e := range ro.History[:min(recentHistory, len(ro.History))] {
		waves := make([]string, len(e.Waves))
		for i, w := range e.Waves {
			waves[i] = w.Name
		}
		_, _ = fmt.Fprintf(tw, "  %s\t%s\t%s\t%s\t%s\t%s\n", short(e.Revision), outcomeOf(e), stampOf(e.StartedAt),
			stampOf(e.EndedAt), orNone(strings.Join(waves, ",")), orNone(oneLine(e.Message)))
	}
	_ = tw.Flush() // writes to a strings.Builder
	if n := len(ro.History) - recentHistory; n > 0 {
		fmt.Fprintf(b, "  %d older in `siteops rollout history`\n", n)
	}
}
