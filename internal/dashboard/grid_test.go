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
	"reflect"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	gitopsv1alpha1 "github.com/siteops/siteops/apis/gitops/v1alpha1"
)

// TestRolloutCellState is the state, wait and message each site cell shows for its place in the rollout and
// its delivery.
func TestRolloutCellState(t *testing.T) {
	published := metav1.NewTime(time.Date(2026, 12, 3, 10, 0, 0, 0, time.UTC))
	since := metav1.NewTime(published.Add(time.Minute))
	soak := metav1.NewTime(published.Add(time.Hour))
	ps, ss := published.Time, since.Time
	site := func(d gitopsv1alpha1.DeliveryState, msg string) *gitopsv1alpha1.SiteStatus {
		return &gitopsv1alpha1.SiteStatus{Name: "a", Ready: true,
			SiteDelivery: gitopsv1alpha1.SiteDelivery{Delivery: d, DeliveryMessage: msg, Since: &since}}
	}
	rec := func(st gitopsv1alpha1.SiteRolloutState, waiting string) *gitopsv1alpha1.RolloutSite {
		return &gitopsv1alpha1.RolloutSite{Name: "a", State: st, WaitingFor: waiting, PublishedAt: &published}
	}
	soaking := rec(gitopsv1alpha1.SitePublished, "soak, 59m0s left")
	soaking.SoakUntil = &soak
	failed := site(gitopsv1alpha1.DeliveryDelivered, "")
	failed.Ready, failed.Reason, failed.Message = false, "KustomizeError", "accumulating resources: no such file"
	for _, tc := range []struct {
		name string
		rs   *gitopsv1alpha1.RolloutSite
		s    *gitopsv1alpha1.SiteStatus
		want cell
	}{
		{"pending waits for an earlier wave", rec(gitopsv1alpha1.SitePending, "wave canary"),
			site(gitopsv1alpha1.DeliveryDelivered, ""), cell{State: "Pending", Waiting: "wave canary"}},
		{"published, Argo CD syncing", rec(gitopsv1alpha1.SitePublished, "Argo CD: Synced and Healthy (now Pending)"),
			site(gitopsv1alpha1.DeliveryPending, "waiting for rollout"), cell{State: "Published", Since: &ps,
				Waiting: "Argo CD: Synced and Healthy (now Pending)", Message: "Argo CD: waiting for rollout"}},
		{"published and delivered is Delivered", rec(gitopsv1alpha1.SitePublished, ""),
			site(gitopsv1alpha1.DeliveryDelivered, ""), cell{State: "Delivered", Since: &ss}},
		{"healthy and soaking", soaking, site(gitopsv1alpha1.DeliveryDelivered, ""),
			cell{State: "Delivered", Since: &ss, Waiting: "soak", Until: &soak.Time}},
		{"halted shows Argo CD's message", rec(gitopsv1alpha1.SiteHalted, "Degraded: web"),
			site(gitopsv1alpha1.DeliveryDegraded, "Deployment web: deadline exceeded"),
			cell{State: "Halted", Since: &ss, Message: "Argo CD: Deployment web: deadline exceeded"}},
		{"halted without a message from Argo CD says why", rec(gitopsv1alpha1.SiteHalted, "not Healthy within 10m"),
			site(gitopsv1alpha1.DeliveryPending, ""), cell{State: "Halted", Since: &ss, Message: "not Healthy within 10m"}},
		{"a failed render wins", rec(gitopsv1alpha1.SiteUnchanged, ""), failed, cell{State: "Failed", Since: &ss,
			Waiting: "render failed: KustomizeError", Message: "accumulating resources: no such file"}},
		{"no status row yet", rec(gitopsv1alpha1.SitePending, "wave canary"), nil,
			cell{State: "Pending", Waiting: "wave canary"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.want.Site = "a"
			if got := rolloutCell(tc.rs, tc.s); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("got  %+v\nwant %+v", got, tc.want)
			}
		})
	}
}

// TestGridOrdersWavesAsTheRolloutWalksThem puts spec.waves first, in order, then the implicit last wave, and
// marks the current wave.
func TestGridOrdersWavesAsTheRolloutWalksThem(t *testing.T) {
	ss := &gitopsv1alpha1.SiteSync{}
	ss.Spec.Waves = []gitopsv1alpha1.Wave{{Name: "canary", Sites: []string{"a"}}, {Name: "eu", Sites: []string{"b*"}}}
	ss.Status.Rollout = &gitopsv1alpha1.RolloutStatus{Wave: "eu", Sites: []gitopsv1alpha1.RolloutSite{
		{Name: "a", Wave: "canary"}, {Name: "b1", Wave: "eu"}, {Name: "b2", Wave: "eu"}, {Name: "c", Wave: "unlisted"},
		{Name: "d", Wave: "old"}}}
	var got []string
	for _, w := range grid(ss) {
		line := w.Name
		if w.Current {
			line += "*"
		}
		for _, c := range w.Cells {
			line += " " + c.Site
		}
		got = append(got, line)
	}
	want := []string{"canary a", "eu* b1 b2", "unlisted c", "old d"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("grid rows %q, want %q", got, want)
	}
}

// TestGridWithoutRolloutShowsDelivery lays a SiteSync without waves out as one row of delivery states.
func TestGridWithoutRolloutShowsDelivery(t *testing.T) {
	ss := &gitopsv1alpha1.SiteSync{}
	ss.Status.Sites = []gitopsv1alpha1.SiteStatus{
		{Name: "a", Ready: true, SiteDelivery: gitopsv1alpha1.SiteDelivery{Delivery: gitopsv1alpha1.DeliveryDelivered}},
		{Name: "b", Ready: true, SiteDelivery: gitopsv1alpha1.SiteDelivery{Delivery: gitopsv1alpha1.DeliveryOutOfSync,
			DeliveryMessage: "sync failed"}},
		{Name: "c", Ready: true}}
	rows := grid(ss)
	if len(rows) != 1 {
		t.Fatalf("%d rows, want 1", len(rows))
	}
	var got []string
	for _, c := range rows[0].Cells {
		got = append(got, c.Site+"="+c.State+":"+c.Message)
	}
	want := []string{"a=Delivered:", "b=OutOfSync:Argo CD: sync failed", "c=Unknown:"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("cells %q, want %q", got, want)
	}
}
