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

package dashboard

import (
	"regexp"
	"strings"
	"testing"
	"time"

	clocktesting "k8s.io/utils/clock/testing"

	gitopsv1alpha1 "github.com/siteops/siteops/apis/gitops/v1alpha1"
)

// renderSite is the Site view's HTML of site in ss, as the handlers execute it.
func renderSite(t *testing.T, ss *gitopsv1alpha1.SiteSync, site string) string {
	t.Helper()
	tmpl, err := parseTemplates(clocktesting.NewFakePassiveClock(time.Now()))
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	if err := tmpl.ExecuteTemplate(&b, "site", newSitePage(ss.Namespace, ss.Name, site, ss)); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// argoSays finds the class of the Site view's "Argo CD says" line and what it says.
var argoSays = regexp.MustCompile(`<dt>Argo CD says</dt><dd class="([^"]*)">([^<]*)</dd>`)

// TestSiteViewColoursArgoCDsMessageByTheSitesState: Argo CD's message is shown in the colour of the site's
// delivery: a delivered site's "successfully synced (all tasks run)" is never red, a Degraded site's message
// is, a Pending one's waits.
func TestSiteViewColoursArgoCDsMessageByTheSitesState(t *testing.T) {
	for _, tc := range []struct {
		delivery gitopsv1alpha1.DeliveryState
		message  string
		tone     string
	}{
		{gitopsv1alpha1.DeliveryDelivered, "successfully synced (all tasks run)", "tone-ok"},
		{gitopsv1alpha1.DeliveryDegraded, "Deployment web: deadline exceeded", "tone-bad"},
		{gitopsv1alpha1.DeliveryPending, "waiting for healthy state", "tone-wait"},
	} {
		t.Run(string(tc.delivery), func(t *testing.T) {
			ss := &gitopsv1alpha1.SiteSync{}
			ss.Namespace, ss.Name = "hub", "sites"
			ss.Status.Sites = []gitopsv1alpha1.SiteStatus{{Name: "paris", Ready: true, SiteDelivery: gitopsv1alpha1.SiteDelivery{
				Delivery: tc.delivery, DeliveryMessage: tc.message}}}
			html := renderSite(t, ss, "paris")
			m := argoSays.FindStringSubmatch(html)
			if m == nil {
				t.Fatalf("no Argo CD line in:\n%s", html)
			}
			classes := strings.Fields(m[1])
			if !containsWord(classes, tc.tone) || (tc.tone != "tone-bad" && containsWord(classes, "message")) {
				t.Errorf("Argo CD's %q has classes %q, want %s (and .message, red, only when bad)", m[2], m[1], tc.tone)
			}
		})
	}
}

// TestSiteViewRolloutStateAgreesWithItsBanner: a site whose overlay failed to render is Failed in the banner
// and in the Rollout section alike, even where the rollout's record still says Unchanged.
func TestSiteViewRolloutStateAgreesWithItsBanner(t *testing.T) {
	ss := &gitopsv1alpha1.SiteSync{}
	ss.Namespace, ss.Name = "hub", "sites"
	ss.Status.Sites = []gitopsv1alpha1.SiteStatus{{Name: "paris", Reason: "KustomizeError", Message: "no such file",
		SiteDelivery: gitopsv1alpha1.SiteDelivery{Delivery: gitopsv1alpha1.DeliveryDelivered}}}
	ss.Status.Rollout = &gitopsv1alpha1.RolloutStatus{Phase: gitopsv1alpha1.RolloutHalted,
		Sites: []gitopsv1alpha1.RolloutSite{{Name: "paris", Wave: "rest", State: gitopsv1alpha1.SiteUnchanged}}}
	html := renderSite(t, ss, "paris")
	banner := regexp.MustCompile(`id="site-state" data-state="([^"]*)"`).FindStringSubmatch(html)
	state := regexp.MustCompile(`<dt>State</dt><dd[^>]*>([^<]*)</dd>`).FindStringSubmatch(html)
	if banner == nil || state == nil {
		t.Fatalf("no banner or rollout state in:\n%s", html)
	}
	if banner[1] != "Failed" || state[1] != banner[1] {
		t.Errorf("banner %q, rollout state %q: want both Failed", banner[1], state[1])
	}
}

func containsWord(words []string, w string) bool {
	for _, x := range words {
		if x == w {
			return true
		}
	}
	return false
}

// TestRolloutCellMessageTakesTheCellsTone: the message in a cell of the Rollout view is in the cell's colour:
// Argo CD's "waiting for rollout to finish" of a Published site waits, it is not red; a Halted site's is.
func TestRolloutCellMessageTakesTheCellsTone(t *testing.T) {
	ss := vocabularySiteSync(true)
	ss.Status.Sites[1].DeliveryMessage = "waiting for rollout to finish"     // b-published
	ss.Status.Sites[5].DeliveryMessage = "Deployment web: deadline exceeded" // f-halted
	tmpl, err := parseTemplates(clocktesting.NewFakePassiveClock(time.Now()))
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	if err := tmpl.ExecuteTemplate(&b, "rollout", newRolloutPage(ss.Namespace, ss.Name, ss)); err != nil {
		t.Fatal(err)
	}
	for site, tone := range map[string]string{"b-published": "tone-wait", "f-halted": "tone-bad"} {
		m := regexp.MustCompile(`id="cell-` + site + `"[^>]*>(?s:.*?)<span class="([^"]*)">Argo CD: `).
			FindStringSubmatch(b.String())
		if m == nil {
			t.Fatalf("no Argo CD message in cell %s:\n%s", site, b.String())
		}
		classes := strings.Fields(m[1])
		if !containsWord(classes, tone) || (tone != "tone-bad" && containsWord(classes, "message")) {
			t.Errorf("cell %s's message has classes %q, want %s (and .message, red, only when bad)", site, m[1], tone)
		}
	}
}
