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
)

// writeSites prints one row per site: the rendered commit that last changed its folder, the revision and
// sync status Argo CD reports for its Application, its health (or why there is none), since when, and the
// health of the site's manager Rollout when Argo CD lists it (Suspended: a preview waits for promotion).
// A site not delivered gets a line with Argo CD's message under the table.
func writeSites(b *strings.Builder, sites []gitopsv1alpha1.SiteStatus, now time.Time) {
	if len(sites) == 0 {
		return
	}
	tw := tabwriter.NewWriter(b, 0, 0, 2, ' ', 0)
	_, _ = fmt.Fprintln(tw, "  SITE\tRENDERED\tSYNCED\tHEALTH\tSINCE\tMANAGER")
	var notes []string
	for _, s := range sites {
		synced := short(s.SyncedRevision)
		if s.SyncStatus != "" {
			synced += " " + s.SyncStatus
		}
		health := s.Health
		switch {
		case health == "" || s.Delivery == gitopsv1alpha1.DeliveryUnreachable:
			// Argo CD keeps the last health it saw of a cluster it cannot read.
			health = string(s.Delivery)
		case health == "Healthy" && s.Delivery != gitopsv1alpha1.DeliveryDelivered:
			// Argo CD's health covers only what it could compare and sync: with a comparison or sync error, or a
			// sync still under way, the row says where the delivery stands, and the note says why.
			health = string(s.Delivery)
		}
		if !s.Ready {
			health = "render failed: " + s.Reason
		}
		since := "-"
		if s.Since != nil {
			since = duration.HumanDuration(now.Sub(s.Since.Time))
		}
		_, _ = fmt.Fprintf(tw, "  %s\t%s\t%s\t%s\t%s\t%s\n", s.Name, short(s.RenderedCommit), synced, orNone(health), since,
			orNone(s.ManagerRollout))
		switch {
		case !s.Ready:
			notes = append(notes, fmt.Sprintf("  %s: %s", s.Name, oneLine(s.Message)))
		case s.Delivery != gitopsv1alpha1.DeliveryDelivered && s.Delivery != gitopsv1alpha1.DeliveryNotObserved &&
			s.DeliveryMessage != "":
			notes = append(notes, fmt.Sprintf("  %s: %s", s.Name, oneLine(s.DeliveryMessage)))
		}
	}
	_ = tw.Flush() // writes to a strings.Builder
	for _, n := range notes {
		b.WriteString(n + "\n")
	}
}
