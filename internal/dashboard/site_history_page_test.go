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
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	gitopsv1alpha1 "github.com/siteops/siteops/apis/gitops/v1alpha1"
	"github.com/siteops/siteops/apis/gitops/v1alpha1/sitesynctest"
	"github.com/siteops/siteops/gitops"
	"github.com/siteops/siteops/internal/sitesyncledger"
)

// newFleetSiteSync creates SiteSync shop in ns over the fleet's repository, with the status the controller
// writes once r4 is on the branch: paris Synced and Healthy at r4, berlin at r3, and history as given.
func newFleetSiteSync(t *testing.T, ns string, f *renderedFleet, history []gitopsv1alpha1.RevisionRecord) {
	t.Helper()
	ctx := context.Background()
	ss := sitesynctest.Valid(ns)
	ss.Name, ss.Spec.Source.URL, ss.Spec.Source.Ref = "shop", f.url, "main"
	if err := k8s.Create(ctx, ss); err != nil {
		t.Fatal(err)
	}
	since := metav1.NewTime(time.Now().Add(-5 * time.Minute).Truncate(time.Second))
	site := func(name, rendered, source string) gitopsv1alpha1.SiteStatus {
		return gitopsv1alpha1.SiteStatus{Name: name, Ready: true, LastRenderedRevision: source,
			SiteDelivery: gitopsv1alpha1.SiteDelivery{RenderedCommit: rendered, Delivery: gitopsv1alpha1.DeliveryDelivered,
				Application: "argocd/shop-" + name, SyncedRevision: rendered, SyncStatus: "Synced", Health: "Healthy",
				Since: &since}}
	}
	ss.Status = gitopsv1alpha1.SiteSyncStatus{SourceRevision: f.c, RenderedRevision: f.r4, LastSyncTime: &since,
		Sites: []gitopsv1alpha1.SiteStatus{site("berlin", f.r3, f.c), site("paris", f.r4, f.a)}, Delivered: "2/2",
		History: history}
	if err := k8s.Status().Update(ctx, ss); err != nil {
		t.Fatal(err)
	}
}

// TestSiteViewShowsTheSitesRenderedCommitsWithTrailersAndDiffs opens paris's Site view from the Rollout view
// in Chromium: it lists the rendered commits that changed paris's folder, newest first, each with its source
// commit, its trailers and the diff of paris's manifest against the commit before it, and not berlin's commit.
func TestSiteViewShowsTheSitesRenderedCommitsWithTrailersAndDiffs(t *testing.T) {
	f := newRenderedFleet(t)
	ns := newNamespace(t)
	newFleetSiteSync(t, ns, f, nil)
	url := startDashboardWith(t, Options{Namespace: ns, Rendered: sitesyncledger.Source{WorkDir: t.TempDir()}})
	tab := newBrowser(t)

	browse(tab, t, "opening the Rollout view", chromedp.Navigate(url+"/sitesyncs/"+ns+"/shop"),
		visible(`#cell-paris`))
	click(tab, t, "opening paris's Site view", `#cell-paris`,
		visible(`#commit-`+f.r4))
	order := read(tab, t, "listing the commits", chromedp.Evaluate[[]string](
		`Array.from(document.querySelectorAll("article.commit")).map(a => a.id.replace("commit-", ""))`))
	if want := []string{f.r4, f.r2, f.r1}; strings.Join(order, " ") != strings.Join(want, " ") {
		t.Errorf("paris's rendered commits %q, want r4 r2 r1 %q (not berlin's r3 %s)", order, want, f.r3)
	}
	cases := []struct {
		commit, source string
		want           []string
	}{
		{f.r4, f.c, []string{gitops.TrailerRevertOf, f.r2, "-  replicas: 3", "+  replicas: 1",
			"Argo CD: Synced, Healthy at this commit", "the site's current rendered commit"}},
		{f.r2, f.b, []string{gitops.TrailerSites, "paris", "-  replicas: 1", "+  replicas: 3",
			"Deployment web (apps/v1)"}},
		{f.r1, f.a, []string{gitops.TrailerSites, "berlin,paris", "every object is new", "+ Deployment web (apps/v1)"}},
	}
	var sels []string
	for _, c := range cases {
		sels = append(sels, `#commit-`+c.commit, `#commit-`+c.commit+` .source`)
	}
	shown := read(tab, t, "reading the commits", texts(sels...))
	for _, c := range cases {
		card := shown[`#commit-`+c.commit]
		if src := shown[`#commit-`+c.commit+` .source`]; src != c.source {
			t.Errorf("commit %s shows source %q, want %s", c.commit, src, c.source)
		}
		want := append([]string{gitops.TrailerSourceRevision, gitops.TrailerVersion}, c.want...)
		for _, w := range want {
			if !strings.Contains(card, w) {
				t.Errorf("commit %s lacks %q:\n%s", c.commit, w, card)
			}
		}
	}
	browse(tab, t, "scrolling to the history", chromedp.ScrollIntoView(chromedp.CSS(`#commit-`+f.r4)))
	screenshot(tab, t, "dashboard-site-history")
}

// TestSiteViewSaysWhyTheHistoryIsNotReadable: a rendered branch the dashboard cannot fetch leaves the rest
// of the Site view as it is, says why, and never shows the credentials.
func TestSiteViewSaysWhyTheHistoryIsNotReadable(t *testing.T) {
	ns := newNamespace(t)
	ss := sitesynctest.Valid(ns)
	ss.Name, ss.Spec.Source.URL = "shop", "http://127.0.0.1:1/config.git"
	if err := k8s.Create(context.Background(), ss); err != nil {
		t.Fatal(err)
	}
	ss.Status.Sites = []gitopsv1alpha1.SiteStatus{{Name: "paris", Ready: true}}
	if err := k8s.Status().Update(context.Background(), ss); err != nil {
		t.Fatal(err)
	}
	const password = "hunter2-not-for-pages"
	url := startDashboardWith(t, Options{Namespace: ns, Rendered: sitesyncledger.Source{WorkDir: t.TempDir(),
		Auth: &gitops.Auth{Username: "siteops", Password: password}}})
	resp := get(t, url+"/sitesyncs/"+ns+"/shop/sites/paris", nil)
	body := readBody(t, resp)
	if resp.StatusCode != http.StatusOK || !strings.Contains(body, `id="history-error"`) ||
		!strings.Contains(body, "not readable from here") || !strings.Contains(body, "127.0.0.1:1") {
		t.Errorf("GET paris's Site view: %s, want the page with why the history is not readable:\n%s", resp.Status, body)
	}
	if strings.Contains(body, password) {
		t.Errorf("the page shows the password:\n%s", body)
	}
}
