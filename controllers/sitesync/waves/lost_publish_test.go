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

package waves

import (
	"slices"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	gitopsv1alpha1 "github.com/siteops/siteops/apis/gitops/v1alpha1"
)

// c2 is the rendered commit that published rev1 to edge-1, pushed by a manager that died before recording it.
const c2 = "c200000000000000000000000000000000000000"

// edgeApproval is canary (dev), then edge (edge-1) behind an approval; prod is in the implicit last wave.
func edgeApproval() gitopsv1alpha1.RolloutSpec {
	return gitopsv1alpha1.RolloutSpec{Waves: []gitopsv1alpha1.Wave{
		{Name: "canary", Sites: []string{"dev"}},
		{Name: "edge", Sites: []string{"edge-1"}, RequireApproval: true},
	}}
}

// waitingForEdge is the status recorded before the approval: dev runs rev1, edge-1 and prod are pending.
func waitingForEdge() *gitopsv1alpha1.RolloutStatus {
	at := metav1.NewTime(t0.Add(-10 * time.Minute))
	published := &at
	return &gitopsv1alpha1.RolloutStatus{Revision: rev1, Phase: gitopsv1alpha1.RolloutWaitingForApproval, Wave: "edge",
		Sites: []gitopsv1alpha1.RolloutSite{
			{Name: "dev", Wave: "canary", State: gitopsv1alpha1.SitePublished, PublishedAt: published,
				DeliveredAt: published, LastHealthyCommit: c0, LastHealthyRevision: old},
			{Name: "edge-1", Wave: "edge", State: gitopsv1alpha1.SitePending, LastHealthyCommit: c0,
				LastHealthyRevision: old},
			{Name: "prod", Wave: "unlisted", State: gitopsv1alpha1.SitePending, LastHealthyCommit: c0,
				LastHealthyRevision: old},
		},
		History: []gitopsv1alpha1.RolloutRecord{{Revision: rev1, StartedAt: published,
			Waves: []gitopsv1alpha1.WaveRecord{{Name: "canary", StartedAt: published, FinishedAt: published}}}}}
}

// TestPlanAPublishWhoseStatusWasLostIsVerifiedBeforeTheNextWave: the manager approved wave edge, pushed the
// commit publishing rev1 to edge-1 and was killed before its status patch. The next manager's sync finds
// edge-1's folder already at rev1's output (not Changed) while the status says Pending. The planner must
// record edge-1 Published (WaveStarted, the wave's history with its approval), wait for it before prod's
// wave, and keep edge-1's last healthy output at what ran before rev1, not at c2.
func TestPlanAPublishWhoseStatusWasLostIsVerifiedBeforeTheNextWave(t *testing.T) {
	r := compile(t, edgeApproval())
	ann := map[string]string{gitopsv1alpha1.ApproveAnnotationPrefix + "edge": rev1}
	actor := func(string) string { return "kubectl-annotate" }
	dev := Site{Name: "dev", RenderedCommit: c1, PublishedRevision: rev1, Delivery: gitopsv1alpha1.DeliveryDelivered,
		Since: t0.Add(-10 * time.Minute)}
	// The sync's plan: the sites as the status last recorded them, edge-1 no longer Changed.
	synced := r.Plan(Input{Revision: rev1, Now: t0, CanPublish: true, Previous: waitingForEdge(), Annotations: ann,
		Actor: actor, Sites: []Site{dev, healthyAt("edge-1", c0, t0.Add(-time.Hour)), changed("prod")}})
	if slices.Contains(synced.Publish, "prod") {
		t.Fatalf("prod published while edge-1, published by a lost commit, is not verified: %+v", synced.Publish)
	}
	if got := site(t, synced.Status, "edge-1"); got.State != gitopsv1alpha1.SitePublished || got.PublishedAt == nil {
		t.Fatalf("edge-1 is %s (published at %v), want Published now", got.State, got.PublishedAt)
	}
	if !slices.Contains(reasons(synced), gitopsv1alpha1.EventWaveStarted) {
		t.Fatalf("events %v, want %s for wave edge", reasons(synced), gitopsv1alpha1.EventWaveStarted)
	}
	wr := waveRecord(&synced.Status.History[0], "edge")
	if wr == nil || wr.ApprovedBy != "kubectl-annotate" {
		t.Fatalf("the history of rev1 does not record wave edge's approval: %+v", synced.Status.History[0].Waves)
	}

	// The plan on the delivery observed after it: edge-1 at c2 in Argo CD, Delivered. It is edge's turn to
	// soak and finish; its last healthy output stays c0.
	edge := Site{Name: "edge-1", RenderedCommit: c2, PublishedRevision: rev1, Delivery: gitopsv1alpha1.DeliveryDelivered,
		Since: t0}
	observed := r.Plan(Input{Revision: rev1, Now: t0.Add(time.Second), Previous: &synced.Status, Annotations: ann,
		Actor: actor, Sites: []Site{dev, edge, changed("prod")}})
	if got := site(t, observed.Status, "edge-1"); got.LastHealthyCommit != c0 {
		t.Fatalf("edge-1's last healthy commit is %s, want %s (what ran before rev1)", got.LastHealthyCommit, c0)
	}
	if !observed.ActionDue || observed.Status.Wave != "unlisted" {
		t.Fatalf("after edge-1 is Delivered the rollout is at wave %q (action due %v), want prod's wave due",
			observed.Status.Wave, observed.ActionDue)
	}
}

// TestPlanDoesNotTakeAPendingSitesNewOutputAsItsLastHealthyOne: a plan without a sync (the dry plan of a
// reconcile) that sees a pending site Delivered at this revision's output, published by a commit the status
// does not know, keeps its last healthy output: a revert must restore what ran before the revision.
func TestPlanDoesNotTakeAPendingSitesNewOutputAsItsLastHealthyOne(t *testing.T) {
	r := compile(t, edgeApproval())
	dev := Site{Name: "dev", RenderedCommit: c1, PublishedRevision: rev1, Delivery: gitopsv1alpha1.DeliveryDelivered,
		Since: t0.Add(-10 * time.Minute)}
	edge := Site{Name: "edge-1", Changed: true, RenderedCommit: c2, PublishedRevision: rev1,
		Delivery: gitopsv1alpha1.DeliveryDelivered, Since: t0}
	p := r.Plan(Input{Revision: rev1, Now: t0, Previous: waitingForEdge(), Sites: []Site{dev, edge, changed("prod")}})
	if got := site(t, p.Status, "edge-1"); got.LastHealthyCommit != c0 || got.LastHealthyRevision != old {
		t.Fatalf("edge-1's last healthy output is %s (source %s), want %s (source %s)", got.LastHealthyCommit,
			got.LastHealthyRevision, c0, old)
	}
}
