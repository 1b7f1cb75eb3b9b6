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
	"slices"
	"strings"
	"testing"
	"time"

	gitopsv1alpha1 "github.com/siteops/siteops/apis/gitops/v1alpha1"
)

// everyState is a SiteSync whose sites are in every state a rollout shows, one site each, in wave canary.
func everyState() gitopsv1alpha1.SiteSync {
	delivered := gitopsv1alpha1.SiteDelivery{Delivery: gitopsv1alpha1.DeliveryDelivered, SyncStatus: "Synced",
		Health: "Healthy"}
	sites := []gitopsv1alpha1.SiteStatus{
		{Name: "a-delivered", Ready: true, SiteDelivery: delivered},
		{Name: "b-published", Ready: true, SiteDelivery: gitopsv1alpha1.SiteDelivery{
			Delivery: gitopsv1alpha1.DeliveryPending, SyncStatus: "OutOfSync", Health: "Healthy"}},
		{Name: "c-pending", Ready: true, SiteDelivery: delivered},
		{Name: "d-unchanged", Ready: true, SiteDelivery: delivered},
		{Name: "e-render-failed", Reason: "KustomizeError", Message: "no such file", SiteDelivery: delivered},
		{Name: "f-halted", Ready: true, SiteDelivery: gitopsv1alpha1.SiteDelivery{
			Delivery: gitopsv1alpha1.DeliveryDegraded, SyncStatus: "Synced", Health: "Degraded"}},
		{Name: "g-reverted", Ready: true, SiteDelivery: delivered},
	}
	rs := []gitopsv1alpha1.RolloutSite{
		{Name: "a-delivered", Wave: "canary", State: gitopsv1alpha1.SitePublished},
		{Name: "b-published", Wave: "canary", State: gitopsv1alpha1.SitePublished},
		{Name: "c-pending", Wave: "canary", State: gitopsv1alpha1.SitePending},
		{Name: "d-unchanged", Wave: "canary", State: gitopsv1alpha1.SiteUnchanged},
		{Name: "e-render-failed", Wave: "canary", State: gitopsv1alpha1.SiteUnchanged},
		{Name: "f-halted", Wave: "canary", State: gitopsv1alpha1.SiteHalted},
		{Name: "g-reverted", Wave: "canary", State: gitopsv1alpha1.SiteReverted},
	}
	ss := gitopsv1alpha1.SiteSync{}
	ss.Namespace, ss.Name = "hub", "sites"
	ss.Status = gitopsv1alpha1.SiteSyncStatus{SourceRevision: strings.Repeat("1", 40), Delivered: "2/7", Sites: sites,
		Rollout: &gitopsv1alpha1.RolloutStatus{Phase: gitopsv1alpha1.RolloutHalted, Revision: strings.Repeat("1", 40),
			Wave: "canary", Sites: rs}}
	return ss
}

// TestStatusSpeaksTheVocabulary: `siteops status` shows the summary as "Delivered N/M", the vocabulary's word,
// and each site of the wave table in the one word every view shows for it (ShownSiteState), a word of
// SiteStates: Delivered once published and Synced and Healthy, Failed for a failed render, never a synonym.
func TestStatusSpeaksTheVocabulary(t *testing.T) {
	ss := everyState()
	var b strings.Builder
	if err := writeStatus(&b, []gitopsv1alpha1.SiteSync{ss}, time.Now()); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	header := strings.SplitN(out, "\n", 2)[0]
	if want := "  " + string(gitopsv1alpha1.DeliveryDelivered) + " " + ss.Status.Delivered; !strings.HasSuffix(header,
		want) {
		t.Errorf("summary %q, want it to end in %q", header, want)
	}
	status := map[string]*gitopsv1alpha1.SiteStatus{}
	for i := range ss.Status.Sites {
		status[ss.Status.Sites[i].Name] = &ss.Status.Sites[i]
	}
	seen := 0
	for _, line := range strings.Split(out, "\n") {
		f := strings.Fields(line)
		if len(f) < 3 || f[0] != "canary" {
			continue
		}
		seen++
		rs := &ss.Status.Rollout.Sites[slices.IndexFunc(ss.Status.Rollout.Sites,
			func(r gitopsv1alpha1.RolloutSite) bool { return r.Name == f[1] })]
		if want := gitopsv1alpha1.ShownSiteState(rs, status[f[1]]); f[2] != want ||
			!slices.Contains(gitopsv1alpha1.SiteStates(), f[2]) {
			t.Errorf("site %s shows %q, want %q, a word of %v", f[1], f[2], want, gitopsv1alpha1.SiteStates())
		}
	}
	if seen != len(ss.Status.Rollout.Sites) {
		t.Errorf("%d wave rows, want %d:\n%s", seen, len(ss.Status.Rollout.Sites), out)
	}
}
