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
	"strings"
	"testing"
	"time"

	gitopsv1alpha1 "github.com/siteops/siteops/apis/gitops/v1alpha1"
)

// TestPlanHalts: a Degraded site of the wave, or one not Healthy within progressDeadline, halts the
// rollout with the site and Argo CD's message; the halt lasts for the revision even when the site recovers,
// later waves never get it, and a newer revision starts a new rollout.
func TestPlanHalts(t *testing.T) {
	deadline := twoWaves()
	deadline.ProgressDeadline = dur(5 * time.Minute)
	cases := []struct {
		name    string
		spec    gitopsv1alpha1.RolloutSpec
		sites   []Site
		now     time.Time
		message string
	}{
		{"Degraded", twoWaves(), devAt("Degraded", t0.Add(time.Minute), `Deployment "web" exceeded its progress deadline`),
			t0.Add(2 * time.Minute),
			`dev Degraded at 111111111111: Deployment "web" exceeded its progress deadline`},
		{"Degraded while soaking", twoWaves(), devAt("Degraded", t0.Add(4*time.Minute), "CrashLoopBackOff"),
			t0.Add(5 * time.Minute),
			"dev Degraded at 111111111111: CrashLoopBackOff"},
		{"progress deadline", deadline, devAt("Pending", t0, "waiting for rollout"), t0.Add(5 * time.Minute),
			"dev not Synced and Healthy within progressDeadline 5m0s (now Pending): waiting for rollout"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := compile(t, tc.spec)
			prev := r.Plan(Input{Revision: rev1, Sites: fleet(), Now: t0, CanPublish: true}).Status
			p := r.Plan(Input{Revision: rev1, Sites: tc.sites, Previous: &prev, Now: tc.now, CanPublish: true})
			if p.Status.Phase != gitopsv1alpha1.RolloutHalted || p.Status.Wave != "canary" {
				t.Fatalf("phase %s wave %s, want Halted canary: %s", p.Status.Phase, p.Status.Wave, p.Status.Message)
			}
			if !strings.Contains(p.Status.Message, tc.message) {
				t.Errorf("message %q, want it to contain %q", p.Status.Message, tc.message)
			}
			if got := site(t, p.Status, "dev"); got.State != gitopsv1alpha1.SiteHalted ||
				!strings.Contains(got.WaitingFor, tc.message) {
				t.Errorf("dev %s %q", got.State, got.WaitingFor)
			}
			if got := site(t, p.Status, "edge-1").WaitingFor; !strings.Contains(got, "halted at wave canary") {
				t.Errorf("edge-1 waits for %q", got)
			}
			if len(p.Publish) != 0 || len(p.Revert) != 0 || strings.Join(reasons(p), ",") != gitopsv1alpha1.EventRolloutHalted {
				t.Errorf("publish %v revert %v events %v", p.Publish, p.Revert, p.Events)
			}
			// dev recovers, the soak passes: the revision stays halted, edge never gets it, no second event.
			recovered := devAt("Delivered", tc.now, "")
			p = r.Plan(Input{Revision: rev1, Sites: recovered, Previous: &p.Status, Now: tc.now.Add(time.Hour),
				CanPublish: true})
			if p.Status.Phase != gitopsv1alpha1.RolloutHalted || len(p.Publish) != 0 || len(p.Events) != 0 {
				t.Errorf("after recovery: phase %s publish %v events %v", p.Status.Phase, p.Publish, p.Events)
			}
			// The fix: rev2 changes dev again, a new rollout starts at wave canary.
			recovered[0].Changed = true
			p = r.Plan(Input{Revision: rev2, Sites: recovered, Previous: &p.Status, Now: tc.now.Add(2 * time.Hour),
				CanPublish: true})
			if p.Status.Phase != gitopsv1alpha1.RolloutProgressing || strings.Join(p.Publish, ",") != "dev" {
				t.Errorf("rev2: phase %s publish %v", p.Status.Phase, p.Publish)
			}
		})
	}
}

// TestPlanRevertsFailedSitesToTheirLastHealthyOutput: with onFailure Revert a failed site's last healthy
// rendered commit (the one it was Synced and Healthy at before the rollout) is written back, once; a site
// with no known healthy output is left halted and says so. Without a sync this round the revert is due.
func TestPlanRevertsFailedSitesToTheirLastHealthyOutput(t *testing.T) {
	spec := twoWaves()
	spec.OnFailure = gitopsv1alpha1.OnFailureRevert
	r := compile(t, spec)
	prev := r.Plan(Input{Revision: rev1, Sites: fleet(), Now: t0, CanPublish: true}).Status
	if got := site(t, prev, "dev").LastHealthyCommit; got != c0 {
		t.Fatalf("dev's last healthy commit %q, want %s", got, c0)
	}
	degraded := devAt("Degraded", t0.Add(time.Minute), "ImagePullBackOff")

	dry := r.Plan(Input{Revision: rev1, Sites: degraded, Previous: &prev, Now: t0.Add(2 * time.Minute)})
	if !dry.ActionDue || len(dry.Revert) != 0 || dry.Status.Phase != gitopsv1alpha1.RolloutHalted {
		t.Fatalf("without a sync: actionDue %v revert %v phase %s", dry.ActionDue, dry.Revert, dry.Status.Phase)
	}
	p := r.Plan(Input{Revision: rev1, Sites: degraded, Previous: &dry.Status, Now: t0.Add(3 * time.Minute),
		CanPublish: true})
	want := Revert{Site: "dev", Commit: c0, Revision: old, Of: c1}
	if len(p.Revert) != 1 || p.Revert[0] != want {
		t.Fatalf("revert %+v, want %+v", p.Revert, want)
	}
	if got := site(t, p.Status, "dev"); got.State != gitopsv1alpha1.SiteReverted ||
		got.WaitingFor != "reverted from "+short(c1)+" to "+short(c0)+" (source "+short(old)+"): dev "+
			"Degraded at "+short(rev1)+": ImagePullBackOff" {
		t.Errorf("dev %s %q", got.State, got.WaitingFor)
	}
	if strings.Join(reasons(p), ",") != gitopsv1alpha1.EventSiteReverted {
		t.Errorf("events %v", p.Events)
	}
	// Next round: the reverted output differs from rev1's (changed), the site is Pending in Argo CD: nothing
	// more is published or reverted.
	p = r.Plan(Input{Revision: rev1, Sites: after(degraded, p, c1, rev1, t0), Previous: &p.Status,
		Now: t0.Add(4 * time.Minute), CanPublish: true})
	if len(p.Revert) != 0 || len(p.Publish) != 0 || site(t, p.Status, "dev").State != gitopsv1alpha1.SiteReverted {
		t.Errorf("after the revert: publish %v revert %v dev %s", p.Publish, p.Revert, site(t, p.Status, "dev").State)
	}

	// A site first seen already changed, never healthy: nothing to revert to.
	fresh := []Site{{Name: "dev", Changed: true, Delivery: gitopsv1alpha1.DeliveryNoApplication}}
	prev = r.Plan(Input{Revision: rev1, Sites: fresh, Now: t0, CanPublish: true}).Status
	p = r.Plan(Input{Revision: rev1, Sites: []Site{{Name: "dev", RenderedCommit: c1, Delivery: "Degraded"}},
		Previous: &prev, Now: t0.Add(time.Minute), CanPublish: true})
	if len(p.Revert) != 0 || !strings.Contains(site(t, p.Status, "dev").WaitingFor, "no healthy output") {
		t.Errorf("never healthy: revert %v, dev waits for %q", p.Revert, site(t, p.Status, "dev").WaitingFor)
	}
}

// TestPlanProgressDeadlineEndsOnceTheSiteIsDelivered: a site that was Synced and Healthy at the revision is past
// its progress deadline for good: reported Pending later (Argo CD still at an older head of the branch after a
// later wave's commit), it does not halt the rollout; Degraded still does.
func TestPlanProgressDeadlineEndsOnceTheSiteIsDelivered(t *testing.T) {
	spec := twoWaves()
	spec.ProgressDeadline = dur(5 * time.Minute)
	r := compile(t, spec)
	prev := r.Plan(Input{Revision: rev1, Sites: fleet(), Now: t0, CanPublish: true}).Status
	p := r.Plan(Input{Revision: rev1, Sites: devAt("Delivered", t0.Add(time.Minute), ""), Previous: &prev,
		Now: t0.Add(time.Minute), CanPublish: true})
	if got := site(t, p.Status, "dev").DeliveredAt; got == nil || !got.Time.Equal(t0.Add(time.Minute)) {
		t.Fatalf("dev's deliveredAt %v, want %s", got, t0.Add(time.Minute))
	}
	pending := devAt("Pending", t0.Add(6*time.Minute), "Argo CD at an older head")
	p = r.Plan(Input{Revision: rev1, Sites: pending, Previous: &p.Status, Now: t0.Add(6 * time.Minute),
		CanPublish: true})
	if p.Status.Phase == gitopsv1alpha1.RolloutHalted {
		t.Fatalf("a site Delivered at the revision, then Pending past the deadline, halted the rollout: %s",
			p.Status.Message)
	}
	degraded := devAt("Degraded", t0.Add(7*time.Minute), "CrashLoopBackOff")
	p = r.Plan(Input{Revision: rev1, Sites: degraded, Previous: &p.Status, Now: t0.Add(7 * time.Minute),
		CanPublish: true})
	if p.Status.Phase != gitopsv1alpha1.RolloutHalted || !strings.Contains(p.Status.Message, "dev Degraded") {
		t.Fatalf("phase %s %q, want Halted by dev Degraded", p.Status.Phase, p.Status.Message)
	}
}
