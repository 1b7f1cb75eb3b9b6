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
// wave order with its state (ShownSiteState, the word every view shows: Delivered once published and Synced
// and Healthy) and what it waits for (soak left, a freeze window, an approval, Argo CD). A site whose overlay
// failed to render (sites, status.sites) is Failed with the render's reason. Nothing is printed for a
// SiteSync without waves.
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
	status := map[string]*gitopsv1alpha1.SiteStatus{}
	for i := range sites {
		status[sites[i].Name] = &sites[i]
	}
	tw := tabwriter.NewWriter(b, 0, 0, 2, ' ', 0)
	_, _ = fmt.Fprintln(tw, "  WAVE\tSITE\tSTATE\tWAITING FOR")
	for _, w := range order {
		for i := range ro.Sites {
			s := &ro.Sites[i]
			if s.Wave != w {
				continue
			}
			state, waiting := gitopsv1alpha1.ShownSiteState(s, status[s.Name]), s.WaitingFor
			if s.SoakUntil != nil && strings.HasPrefix(waiting, "soak, ") { // told when the planner ran
				waiting = waves.SoakLeft(s.SoakUntil.Time, now)
			}
			if st, ok := status[s.Name]; ok && !st.Ready {
				waiting = "render failed: " + st.Reason
			}
			_, _ = fmt.Fprintf(tw, "  %s\t%s\t%s\t%s\n", w, s.Name, state, orNone(oneLine(waiting)))
		}
	}
	_ = tw.Flush() // writes to a strings.Builder
}
