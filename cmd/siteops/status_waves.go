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
	"time"

	"k8s.io/apimachinery/pkg/util/duration"

	gitopsv1alpha1 "github.com/siteops/siteops/apis/gitops/v1alpha1"
	"github.com/siteops/siteops/controllers/sitesync/waves"
)

// writeRollout prints the rollout of spec.waves: its phase, revision and message, then one row per site in
// wave order with its state and what it waits for (soak left, a freeze window, an approval, Argo CD). A site
// whose overlay failed to render (sites, status.sites) is Failed with the render's reason: the planner only
// sees that it has no new output. Nothing is printed for a SiteSync without waves.
func writeRollout(b *strings.Builder, ro *gitopsv1alpha1.RolloutStatus, sites []gitopsv1alpha1.SiteStatus,
	now time.Time) {
	if ro == nil {
		return
	}
	fmt.Fprintf(b, "  %-9s %s at %s", "rollout", ro.Phase, short(ro.Revision))
	if ro.Wave != "" {
		fmt.Fprintf(b, " (wave %s)", ro.Wave)
	}
	if ro.FrozenUntil != nil {
		fmt.Fprintf(b, " frozen for %s more", duration.HumanDuration(ro.FrozenUntil.Sub(now)))
	}
	b.WriteString("\n")
	if ro.Message != "" {
		fmt.Fprintf(b, "  %-9s %s\n", "", oneLine(ro.Message))
	}
	var order []string
	seen := map[string]bool{}
	for _, s := range ro.Sites {
		if !seen[s.Wave] && s.Wave != gitopsv1alpha1.ImplicitWave {
			seen[s.Wave] = true
			order = append(order, s.Wave)
		}
	}
	order = append(order, gitopsv1alpha1.ImplicitWave)
	failed := map[string]string{}
	for _, s := range sites {
		if !s.Ready {
			failed[s.Name] = "render failed: " + s.Reason
		}
	}
	tw := tabwriter.NewWriter(b, 0, 0, 2, ' ', 0)
	_, _ = fmt.Fprintln(tw, "  WAVE\tSITE\tSTATE\tWAITING FOR")
	for _, w := range order {
		for _, s := range ro.Sites {
			if s.Wave != w {
				continue
			}
			state, waiting := string(s.State), s.WaitingFor
			if s.SoakUntil != nil && strings.HasPrefix(waiting, "soak, ") { // told when the planner ran
				waiting = waves.SoakLeft(s.SoakUntil.Time, now)
			}
			if why, ok := failed[s.Name]; ok {
				state, waiting = "Failed", why
			}
			_, _ = fmt.Fprintf(tw, "  %s\t%s\t%s\t%s\n", w, s.Name, state, orNone(oneLine(waiting)))
		}
	}
	_ = tw.Flush() // writes to a strings.Builder
}
