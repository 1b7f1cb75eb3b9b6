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
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	gitopsv1alpha1 "github.com/siteops/siteops/apis/gitops/v1alpha1"
)

// Revisions and rendered commits of the tests.
const (
	rev1 = "1111111111111111111111111111111111111111"
	rev2 = "2222222222222222222222222222222222222222"
	old  = "0000000000000000000000000000000000000000"
	c0   = "c000000000000000000000000000000000000000" // rendered commit of the old output
	c1   = "c100000000000000000000000000000000000000" // rendered commit of rev1's output
)

// t0 is the tests' fixed "now" (a Monday, 10:00 UTC).
var t0 = time.Date(2026, 3, 2, 10, 0, 0, 0, time.UTC)

func dur(d time.Duration) *metav1.Duration { return &metav1.Duration{Duration: d} }

// twoWaves is canary (dev, soak 10m) then edge (edge-*); prod is in no wave.
func twoWaves() gitopsv1alpha1.RolloutSpec {
	return gitopsv1alpha1.RolloutSpec{Waves: []gitopsv1alpha1.Wave{
		{Name: "canary", Sites: []string{"dev"}, Soak: dur(10 * time.Minute)},
		{Name: "edge", Sites: []string{"edge-*"}},
	}}
}

func compile(t *testing.T, spec gitopsv1alpha1.RolloutSpec) *Rollout {
	t.Helper()
	r, err := Compile(spec)
	if err != nil {
		t.Fatalf("Compile: %v", err)
	}
	return r
}

// healthyAt is a site Delivered since since at commit, not changed by the revision.
func healthyAt(name, commit string, since time.Time) Site {
	return Site{Name: name, RenderedCommit: commit, PublishedRevision: old, Delivery: gitopsv1alpha1.DeliveryDelivered,
		Since: since}
}

// changed is a site Delivered at c0 that the revision changes.
func changed(name string) Site {
	s := healthyAt(name, c0, t0.Add(-time.Hour))
	s.Changed = true
	return s
}

// site returns the status record of name.
func site(t *testing.T, st gitopsv1alpha1.RolloutStatus, name string) gitopsv1alpha1.RolloutSite {
	t.Helper()
	for _, s := range st.Sites {
		if s.Name == name {
			return s
		}
	}
	t.Fatalf("site %s not in status %+v", name, st.Sites)
	return gitopsv1alpha1.RolloutSite{}
}

// reasons lists the events' reasons.
func reasons(p Plan) []string {
	var out []string
	for _, e := range p.Events {
		out = append(out, e.Reason)
	}
	return out
}

// after applies what a sync carrying out p does to the sites: the published ones are at c1 (rev1's output)
// and Pending in Argo CD, the reverted ones at their restored commit.
func after(sites []Site, p Plan, commit, revision string, now time.Time) []Site {
	out := make([]Site, len(sites))
	for i, s := range sites {
		out[i] = s
		for _, n := range p.Publish {
			if n == s.Name {
				out[i] = Site{Name: s.Name, RenderedCommit: commit, PublishedRevision: revision,
					Delivery: gitopsv1alpha1.DeliveryPending, Since: now}
			}
		}
		for _, r := range p.Revert {
			if r.Site == s.Name {
				out[i] = Site{Name: s.Name, Changed: true, RenderedCommit: "revert", PublishedRevision: r.Revision,
					Delivery: gitopsv1alpha1.DeliveryPending, Since: now}
			}
		}
	}
	return out
}

// set returns sites with name replaced by s.
func set(sites []Site, s Site) []Site {
	out := append([]Site(nil), sites...)
	for i := range out {
		if out[i].Name == s.Name {
			out[i] = s
		}
	}
	return out
}
