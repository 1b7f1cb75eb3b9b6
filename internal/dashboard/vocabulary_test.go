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
	"slices"
	"strings"
	"testing"
	"time"

	clocktesting "k8s.io/utils/clock/testing"

	gitopsv1alpha1 "github.com/siteops/siteops/apis/gitops/v1alpha1"
)

// cellStates finds each cell of the Rollout view with the state it shows.
var cellStates = regexp.MustCompile(`id="cell-([^"]+)" data-key="[^"]*" data-state="([^"]*)"`)

// vocabularySiteSync has one site in each state a rollout shows; with rollout false it has no rollout.
func vocabularySiteSync(rollout bool) *gitopsv1alpha1.SiteSync {
	delivered := gitopsv1alpha1.SiteDelivery{Delivery: gitopsv1alpha1.DeliveryDelivered}
	ss := &gitopsv1alpha1.SiteSync{}
	ss.Namespace, ss.Name = "hub", "sites"
	ss.Status.Sites = []gitopsv1alpha1.SiteStatus{
		{Name: "a-delivered", Ready: true, SiteDelivery: delivered},
		{Name: "b-published", Ready: true,
			SiteDelivery: gitopsv1alpha1.SiteDelivery{Delivery: gitopsv1alpha1.DeliveryPending}},
		{Name: "c-pending", Ready: true, SiteDelivery: delivered},
		{Name: "d-unchanged", Ready: true, SiteDelivery: delivered},
		{Name: "e-render-failed", Reason: "KustomizeError", SiteDelivery: delivered},
		{Name: "f-halted", Ready: true,
			SiteDelivery: gitopsv1alpha1.SiteDelivery{Delivery: gitopsv1alpha1.DeliveryDegraded}},
		{Name: "g-reverted", Ready: true,
			SiteDelivery: gitopsv1alpha1.SiteDelivery{Delivery: gitopsv1alpha1.DeliveryOutOfSync}},
	}
	if rollout {
		ss.Status.Rollout = &gitopsv1alpha1.RolloutStatus{Phase: gitopsv1alpha1.RolloutHalted, Wave: "unlisted",
			Sites: []gitopsv1alpha1.RolloutSite{
				{Name: "a-delivered", Wave: "unlisted", State: gitopsv1alpha1.SitePublished},
				{Name: "b-published", Wave: "unlisted", State: gitopsv1alpha1.SitePublished},
				{Name: "c-pending", Wave: "unlisted", State: gitopsv1alpha1.SitePending},
				{Name: "d-unchanged", Wave: "unlisted", State: gitopsv1alpha1.SiteUnchanged},
				{Name: "e-render-failed", Wave: "unlisted", State: gitopsv1alpha1.SiteUnchanged},
				{Name: "f-halted", Wave: "unlisted", State: gitopsv1alpha1.SiteHalted},
				{Name: "g-reverted", Wave: "unlisted", State: gitopsv1alpha1.SiteReverted},
			}}
	}
	return ss
}

// TestDashboardSpeaksTheVocabulary: each cell of the Rollout view shows the one word every view shows for
// its site (ShownSiteState): a word of SiteStates with a rollout, of DeliveryStates (or Failed, for a failed
// render) without, never a synonym such as Healthy; the rollout's phase is a word of RolloutPhases.
func TestDashboardSpeaksTheVocabulary(t *testing.T) {
	tmpl, err := parseTemplates(clocktesting.NewFakePassiveClock(time.Now()))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name    string
		rollout bool
		words   []string
	}{
		{"rollout", true, gitopsv1alpha1.SiteStates()},
		{"no rollout", false, append(gitopsv1alpha1.DeliveryStates(), string(gitopsv1alpha1.SiteFailed))},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ss := vocabularySiteSync(tc.rollout)
			var b strings.Builder
			if err := tmpl.ExecuteTemplate(&b, "rollout", newRolloutPage(ss.Namespace, ss.Name, ss)); err != nil {
				t.Fatal(err)
			}
			cells := cellStates.FindAllStringSubmatch(b.String(), -1)
			if len(cells) != len(ss.Status.Sites) {
				t.Fatalf("%d cells, want %d:\n%s", len(cells), len(ss.Status.Sites), b.String())
			}
			for _, c := range cells {
				s := &ss.Status.Sites[slices.IndexFunc(ss.Status.Sites,
					func(s gitopsv1alpha1.SiteStatus) bool { return s.Name == c[1] })]
				var rs *gitopsv1alpha1.RolloutSite
				if ro := ss.Status.Rollout; ro != nil {
					rs = &ro.Sites[slices.IndexFunc(ro.Sites, func(r gitopsv1alpha1.RolloutSite) bool { return r.Name == c[1] })]
				}
				if want := gitopsv1alpha1.ShownSiteState(rs, s); c[2] != want || !slices.Contains(tc.words, c[2]) {
					t.Errorf("cell %s shows %q, want %q, a word of %v", c[1], c[2], want, tc.words)
				}
			}
			if tc.rollout {
				phase := regexp.MustCompile(`id="phase" class="[^"]*">([^<]*)<`).FindStringSubmatch(b.String())
				if phase == nil || !slices.Contains(gitopsv1alpha1.RolloutPhases(), phase[1]) {
					t.Errorf("phase %q, want a word of %v", phase, gitopsv1alpha1.RolloutPhases())
				}
			}
		})
	}
}
