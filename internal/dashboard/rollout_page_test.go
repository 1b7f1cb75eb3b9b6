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
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	gitopsv1alpha1 "github.com/siteops/siteops/apis/gitops/v1alpha1"
)

// argoDegraded is Argo CD's message for tokyo when its rollout fails.
const argoDegraded = `Deployment "web" exceeded its progress deadline`

// The scripted steps of the rollout of newRevision through waves canary (paris) and rest (berlin, tokyo).
func canaryPublished() rolloutStep {
	return rolloutStep{phase: gitopsv1alpha1.RolloutProgressing, wave: "canary",
		message: "wave canary: committed 4f9c2d1e8a7b for paris; waiting for Argo CD",
		sites: []stepSite{
			{"paris", "canary", gitopsv1alpha1.SitePublished, "Argo CD: Synced and Healthy at the new rendered commit",
				gitopsv1alpha1.DeliveryPending, "Progressing", ""},
			{"berlin", "rest", gitopsv1alpha1.SitePending, "wave canary", gitopsv1alpha1.DeliveryDelivered, "Healthy", ""},
			{"tokyo", "rest", gitopsv1alpha1.SitePending, "wave canary", gitopsv1alpha1.DeliveryDelivered, "Healthy", ""},
		}}
}

func restPublished() rolloutStep {
	return rolloutStep{phase: gitopsv1alpha1.RolloutProgressing, wave: "rest",
		message: "wave rest: 2 of 2 sites not yet Synced and Healthy at 4f9c2d1e8a7b",
		sites: []stepSite{
			{"paris", "canary", gitopsv1alpha1.SitePublished, "", gitopsv1alpha1.DeliveryDelivered, "Healthy", ""},
			{"berlin", "rest", gitopsv1alpha1.SitePublished, "Argo CD: Synced and Healthy (now Pending)",
				gitopsv1alpha1.DeliveryPending, "Progressing", "waiting for rollout to finish"},
			{"tokyo", "rest", gitopsv1alpha1.SitePublished, "Argo CD: Synced and Healthy (now Pending)",
				gitopsv1alpha1.DeliveryPending, "Progressing", "waiting for rollout to finish"},
		}}
}

func berlinDelivered() rolloutStep {
	st := restPublished()
	st.message = "wave rest: 1 of 2 sites not yet Synced and Healthy at 4f9c2d1e8a7b"
	st.sites[1] = stepSite{"berlin", "rest", gitopsv1alpha1.SitePublished, "", gitopsv1alpha1.DeliveryDelivered,
		"Healthy", ""}
	return st
}

func tokyoHalted() rolloutStep {
	st := berlinDelivered()
	st.phase = gitopsv1alpha1.RolloutHalted
	st.message = "halted at wave rest: tokyo Degraded: " + argoDegraded +
		"; later waves do not get 4f9c2d1e8a7b, push a fix"
	st.sites[2] = stepSite{"tokyo", "rest", gitopsv1alpha1.SiteHalted, "Degraded: " + argoDegraded,
		gitopsv1alpha1.DeliveryDegraded, "Degraded", argoDegraded}
	return st
}

// TestRolloutCellTurnsPendingPublishedDeliveredWithoutReload opens the Rollout view in Chromium and moves a
// 2-wave rollout on in the apiserver: berlin's cell turns Pending → Published → Delivered in the same page load.
func TestRolloutCellTurnsPendingPublishedDeliveredWithoutReload(t *testing.T) {
	ns := newNamespace(t)
	ss := newTwoWaveSiteSync(t, ns)
	setStatus(t, ss, canaryPublished())
	url := startDashboard(t, ns)
	tab := newBrowser(t)

	browse(tab, t, "opening the Rollout view", chromedp.Navigate(url+"/sitesyncs/"+ns+"/shop"),
		visible(`#live[data-live="live"]`), visible(`#cell-berlin[data-state="Pending"]`),
		visible(`#cell-paris[data-state="Published"]`))
	read(tab, t, "marking the page load", chromedp.Evaluate[string](`window.siteopsLoad = "first"`))

	setStatus(t, ss, restPublished())
	browse(tab, t, "waiting for berlin Published", visible(`#cell-berlin[data-state="Published"]`),
		visible(`#cell-paris[data-state="Delivered"]`))

	setStatus(t, ss, berlinDelivered())
	browse(tab, t, "waiting for berlin Delivered", visible(`#cell-berlin[data-state="Delivered"]`))
	if state := read(tab, t, "reading berlin's state", text(`#cell-berlin .state`)); state != "Delivered" {
		t.Errorf("berlin's cell says %q, want Delivered", state)
	}
	if load := read(tab, t, "reading the load mark", chromedp.Evaluate[string](`window.siteopsLoad`)); load != "first" {
		t.Errorf("the page was loaded again (window.siteopsLoad = %q): the updates must come without a reload", load)
	}
	screenshot(tab, t, "dashboard-rollout")
}

// TestHaltShowsTheFailingSiteWithArgoCDsMessage halts the rollout at tokyo: the Fleet view's row, the Rollout
// view's cell and the Site view show it, with Argo CD's message, the open page updated without a reload.
func TestHaltShowsTheFailingSiteWithArgoCDsMessage(t *testing.T) {
	ns := newNamespace(t)
	ss := newTwoWaveSiteSync(t, ns)
	setStatus(t, ss, berlinDelivered())
	url := startDashboard(t, ns)
	tab := newBrowser(t)
	row := `#sitesync-` + ns + `-shop`

	browse(tab, t, "opening the Fleet view", chromedp.Navigate(url+"/"), visible(`#live[data-live="live"]`),
		visible(row+` .phase-Progressing`))
	setStatus(t, ss, tokyoHalted())
	browse(tab, t, "waiting for the Fleet row to say Halted", visible(row+` .phase-Halted`))
	if fleet := read(tab, t, "reading the Fleet row", text(row)); !strings.Contains(fleet, "2/3") {
		t.Errorf("the Fleet row says %q, want 2/3 sites delivered", fleet)
	}
	screenshot(tab, t, "dashboard-fleet")

	browse(tab, t, "opening the Rollout view", chromedp.Navigate(url+"/sitesyncs/"+ns+"/shop"),
		visible(`#cell-tokyo[data-state="Halted"]`))
	phase := read(tab, t, "reading the phase", text(`#phase`))
	cell := read(tab, t, "reading tokyo's cell", text(`#cell-tokyo`))
	if phase != "Halted" || !strings.Contains(cell, argoDegraded) {
		t.Errorf("rollout phase %q, tokyo's cell %q; want Halted and Argo CD's message %q", phase, cell, argoDegraded)
	}
	screenshot(tab, t, "dashboard-halt")

	click(tab, t, "opening tokyo's Site view", `#cell-tokyo`,
		visible(`#site-state[data-state="Halted"]`))
	site := read(tab, t, "reading tokyo's Site view", text(`#view`))
	for _, want := range []string{argoDegraded, "argocd/shop-tokyo", "Degraded"} {
		if !strings.Contains(site, want) {
			t.Errorf("tokyo's Site view lacks %q:\n%s", want, site)
		}
	}
	screenshot(tab, t, "dashboard-site")
}
