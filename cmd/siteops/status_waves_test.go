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
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	gitopsv1alpha1 "github.com/siteops/siteops/apis/gitops/v1alpha1"
)

// TestStatusShowsWavesAndTheirSites: the rollout prints its phase, wave and message, then the sites wave by
// wave (the implicit last wave last) with what each waits for; a SiteSync without waves prints nothing.
func TestStatusShowsWavesAndTheirSites(t *testing.T) {
	now := time.Date(2026, 3, 2, 10, 0, 0, 0, time.UTC)
	ro := &gitopsv1alpha1.RolloutStatus{
		Phase: gitopsv1alpha1.RolloutSoaking, Revision: "1111111111112222222222222222222222222222", Wave: "canary",
		Message: "wave canary: soaking until 2026-03-02T10:06:00Z",
		Sites: []gitopsv1alpha1.RolloutSite{
			{Name: "a-lab", Wave: gitopsv1alpha1.ImplicitWave, State: gitopsv1alpha1.SitePending, WaitingFor: "wave canary"},
			{Name: "dev", Wave: "canary", State: gitopsv1alpha1.SitePublished, WaitingFor: "soak, 6m0s left",
				SoakUntil: &metav1.Time{Time: now.Add(6 * time.Minute)}},
			{Name: "edge-1", Wave: "edge", State: gitopsv1alpha1.SitePending, WaitingFor: "wave canary"},
			// told by the planner 2 s before now: the time left is told from SoakUntil and now
			{Name: "prod", Wave: "canary", State: gitopsv1alpha1.SitePublished, WaitingFor: "soak, 10s left",
				SoakUntil: &metav1.Time{Time: now.Add(8 * time.Second)}},
		},
	}
	var b strings.Builder
	writeRollout(&b, ro, nil, now)
	out := b.String()
	for _, want := range []string{
		"rollout   Soaking at 111111111111 (wave canary)\n",
		"wave canary: soaking until 2026-03-02T10:06:00Z",
		"WAVE      SITE    STATE      WAITING FOR",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	rows := []string{
		"canary    dev     Published  soak, 6m0s left",
		"canary    prod    Published  soak, 8s left",
		"edge      edge-1  Pending    wave canary",
		"unlisted  a-lab   Pending    wave canary",
	}
	last := -1
	for _, r := range rows {
		i := strings.Index(out, r)
		if i <= last {
			t.Errorf("row %q missing or out of wave order:\n%s", r, out)
		}
		last = i
	}
	b.Reset()
	writeRollout(&b, nil, nil, now)
	if b.Len() != 0 {
		t.Errorf("without waves: %q", b.String())
	}
}

// TestStatusWaveTableShowsAFailedRenderAsFailed: a site whose overlay fails to render is not Unchanged in the
// wave table (the planner sees no new output for it): its row says Failed with the render's reason.
func TestStatusWaveTableShowsAFailedRenderAsFailed(t *testing.T) {
	now := time.Date(2026, 3, 2, 10, 0, 0, 0, time.UTC)
	ro := &gitopsv1alpha1.RolloutStatus{
		Phase: gitopsv1alpha1.RolloutComplete, Revision: "1111111111112222222222222222222222222222",
		Sites: []gitopsv1alpha1.RolloutSite{
			{Name: "dev", Wave: "canary", State: gitopsv1alpha1.SitePublished},
			{Name: "prod", Wave: "canary", State: gitopsv1alpha1.SiteUnchanged},
		},
	}
	sites := []gitopsv1alpha1.SiteStatus{
		{Name: "dev", Ready: true},
		{Name: "prod", Reason: "KustomizeError", Message: "accumulating resources: missing-values.yaml"},
	}
	var b strings.Builder
	writeRollout(&b, ro, sites, now)
	out := b.String()
	for _, want := range []string{
		"canary  dev   Published  -\n",
		"canary  prod  Failed     render failed: KustomizeError\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "Unchanged") {
		t.Errorf("a failed render shows as Unchanged:\n%s", out)
	}
}
