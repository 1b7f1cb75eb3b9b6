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

package bench

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os/exec"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	gitopsv1alpha1 "github.com/siteops/siteops/apis/gitops/v1alpha1"
	"github.com/siteops/siteops/apis/gitops/v1alpha1/sitesynctest"
	"github.com/siteops/siteops/internal/dashboard"
	"github.com/siteops/siteops/test/testenv"
)

// Sizes of row P15, and the environment variables that change how many samples it takes.
const (
	dashboardSites      = 1000
	dashboardCanary     = 10
	envDashboardLoads   = "SITEOPS_BENCH_DASHBOARD_LOADS"
	envDashboardUpdates = "SITEOPS_BENCH_DASHBOARD_UPDATES"
)

// BenchmarkDashboardRollout is row P15 (issue 33): the dashboard's Rollout view of a SiteSync with 1,000
// sites in two waves, in Debian's headless Chromium. Load: navigation start → the load event and the last
// site's cell shown. Update: just before the status write that moves one site of the second wave from
// Pending to Published → a MutationObserver in the open page sees that cell's new state.
func BenchmarkDashboardRollout(b *testing.B) {
	loads, updates := envInt(b, envDashboardLoads, 5), envInt(b, envDashboardUpdates, 20)
	env, err := testenv.Start(testenv.Options{})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = env.Stop() })
	k8s, err := client.New(env.Config, client.Options{Scheme: env.Scheme})
	if err != nil {
		b.Fatal(err)
	}
	ss := newDashboardSiteSync(b, k8s)
	url := startDashboardServer(b, env, ss.Namespace) + "/sitesyncs/" + ss.Namespace + "/" + ss.Name
	htmlBytes := pageSize(b, url)
	tab := newHeadlessTab(b)
	var loadD, updateD []time.Duration
	for b.Loop() {
		for range loads {
			start := time.Now()
			mustDo(b, chromedp.Do(withTimeout(tab, b, time.Minute), chromedp.Navigate(url),
				chromedp.WaitVisible(chromedp.CSS(`#cell-`+siteName(dashboardSites-1)))))
			loadD = append(loadD, time.Since(start))
		}
		mustDo(b, chromedp.Do(tab, chromedp.WaitVisible(chromedp.CSS(`#live[data-live="live"]`))))
		for i := range updates {
			site := siteName(dashboardCanary + i)
			_, err := chromedp.Run(tab, chromedp.Evaluate[bool](watchCellScript(site, "Published")))
			mustDo(b, err)
			start := time.Now()
			publish(b, k8s, ss, site)
			seenMs, err := chromedp.Run(withTimeout(tab, b, time.Minute), chromedp.Evaluate[float64](
				`window.siteopsSeen`, chromedp.EvalAwaitPromise))
			mustDo(b, err)
			updateD = append(updateD, time.UnixMilli(int64(seenMs)).Sub(start))
		}
	}
	lp50, lp99 := Quantile(loadD, 0.5), Quantile(loadD, 0.99)
	up50, up99 := Quantile(updateD, 0.5), Quantile(updateD, 0.99)
	b.ReportMetric(lp50.Seconds()*1000, "load-p50-ms")
	b.ReportMetric(up50.Seconds()*1000, "update-p50-ms")
	Record(Row{
		ID: "P15",
		Siteops: fmt.Sprintf("load p50 %s, p99 %s; update p50 %s, p99 %s", FormatDuration(lp50),
			FormatDuration(lp99), FormatDuration(up50), FormatDuration(up99)),
		Anchor:  "—",
		Ratio:   "—",
		Outcome: Judge(lp99 < time.Second && up99 < time.Second),
		N:       fmt.Sprintf("%d sites; %d loads, %d updates", dashboardSites, len(loadD), len(updateD)),
		Notes: fmt.Sprintf("envtest apiserver; internal/dashboard (what `siteops dashboard` serves) on 127.0.0.1; "+
			"Debian's headless Chromium driven by chromedp, one tab; a SiteSync with waves canary (%d sites) and "+
			"unlisted (%d), every site in status.sites and status.rollout.sites; page %d KiB of HTML; update = one "+
			"Status().Update of the whole status (one site Pending → Published) → watch → Server-Sent Event → the "+
			"page's script swaps that cell (time read in the page with Date.now(), same host clock)",
			dashboardCanary, dashboardSites-dashboardCanary, htmlBytes/1024),
	})
}

// newDashboardSiteSync creates a SiteSync whose rollout of a revision has published its canary wave: the
// canary sites Healthy, every other site Pending behind it.
func newDashboardSiteSync(tb testing.TB, k8s client.Client) *gitopsv1alpha1.SiteSync {
	tb.Helper()
	ctx := context.Background()
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{GenerateName: "bench-dashboard-"}}
	mustDo(tb, k8s.Create(ctx, ns))
	ss := sitesynctest.Valid(ns.Name)
	ss.Spec.Waves = []gitopsv1alpha1.Wave{{Name: "canary", Sites: []string{"site-00?"}}}
	mustDo(tb, k8s.Create(ctx, ss))
	now := metav1.Now()
	rev, rendered := "4f9c2d1e8a7b6c5d4e3f2a1b0c9d8e7f6a5b4c3d", "9e8d7c6b5a4f3e2d1c0b9a8f7e6d5c4b3a291807"
	ro := &gitopsv1alpha1.RolloutStatus{Phase: gitopsv1alpha1.RolloutProgressing, Revision: rev, Wave: "unlisted"}
	for i := range dashboardSites {
		rs := gitopsv1alpha1.RolloutSite{Name: siteName(i), Wave: "canary", State: gitopsv1alpha1.SitePublished,
			PublishedAt: &now}
		s := gitopsv1alpha1.SiteStatus{Name: siteName(i), Ready: true, LastRenderedRevision: rev,
			SiteDelivery: gitopsv1alpha1.SiteDelivery{RenderedCommit: rendered, Delivery: gitopsv1alpha1.DeliveryDelivered,
				Application: "argocd/sites-" + siteName(i), SyncedRevision: rendered, SyncStatus: "Synced",
				Health: "Healthy", Since: &now}}
		if i >= dashboardCanary {
			rs = gitopsv1alpha1.RolloutSite{Name: siteName(i), Wave: gitopsv1alpha1.ImplicitWave,
				State: gitopsv1alpha1.SitePending, WaitingFor: "the next sync, which commits it"}
		}
		ro.Sites = append(ro.Sites, rs)
		ss.Status.Sites = append(ss.Status.Sites, s)
	}
	ss.Status.SourceRevision, ss.Status.RenderedRevision, ss.Status.Rollout = rev, rendered, ro
	ss.Status.Delivered = fmt.Sprintf("%d/%d", dashboardSites, dashboardSites)
	mustDo(tb, k8s.Status().Update(ctx, ss))
	return ss
}

// publish moves site from Pending to Published in the SiteSync's status, as the controller's rollout does,
// Argo CD not yet synced.
func publish(tb testing.TB, k8s client.Client, ss *gitopsv1alpha1.SiteSync, site string) {
	tb.Helper()
	now := metav1.Now()
	for i := range ss.Status.Rollout.Sites {
		if rs := &ss.Status.Rollout.Sites[i]; rs.Name == site {
			rs.State, rs.PublishedAt = gitopsv1alpha1.SitePublished, &now
			rs.WaitingFor = "Argo CD: Synced and Healthy at the new rendered commit"
		}
	}
	for i := range ss.Status.Sites {
		if s := &ss.Status.Sites[i]; s.Name == site { // a new rendered commit Argo CD has yet to sync
			s.Delivery, s.SyncStatus, s.Since = gitopsv1alpha1.DeliveryPending, "OutOfSync", &now
		}
	}
	mustDo(tb, k8s.Status().Update(context.Background(), ss))
}

// withTimeout is ctx for at most d, cancelled when the benchmark ends.
func withTimeout(ctx context.Context, tb testing.TB, d time.Duration) context.Context {
	ctx, cancel := context.WithTimeout(ctx, d)
	tb.Cleanup(cancel)
	return ctx
}

// watchCellScript sets window.siteopsSeen to a promise of the time (Date.now()) the page shows site's cell
// in state.
func watchCellScript(site, state string) string {
	return fmt.Sprintf(`(() => {
  const seen = () => { const el = document.getElementById(%q); return el && el.dataset.state === %q; };
  window.siteopsSeen = new Promise(resolve => {
    if (seen()) { resolve(Date.now()); return; }
    new MutationObserver((_, o) => { if (seen()) { o.disconnect(); resolve(Date.now()); } })
      .observe(document.getElementById("view"), {subtree: true, childList: true, attributes: true});
  });
  return true;
})()`, "cell-"+site, state)
}

// startDashboardServer serves the dashboard of namespace ns on 127.0.0.1 and returns its URL.
func startDashboardServer(tb testing.TB, env *testenv.Env, ns string) string {
	tb.Helper()
	srv, err := dashboard.New(env.Config, env.Scheme, dashboard.Options{Namespace: ns})
	mustDo(tb, err)
	ctx, cancel := context.WithCancel(context.Background())
	mustDo(tb, srv.Start(ctx))
	hs := httptest.NewUnstartedServer(srv.Handler())
	hs.Config.BaseContext = func(net.Listener) context.Context { return ctx }
	hs.Start()
	tb.Cleanup(func() { cancel(); hs.Close() })
	return hs.URL
}

// pageSize is the size in bytes of the page at url.
func pageSize(tb testing.TB, url string) int {
	tb.Helper()
	resp, err := http.Get(url)
	mustDo(tb, err)
	defer func() { _ = resp.Body.Close() }()
	body, err := io.ReadAll(resp.Body)
	mustDo(tb, err)
	return len(body)
}

// newHeadlessTab starts Debian's chromium, headless, and returns a tab's context.
func newHeadlessTab(tb testing.TB) context.Context {
	tb.Helper()
	path, err := exec.LookPath("chromium")
	if err != nil {
		tb.Fatal("no chromium on PATH: run hack/chromium.sh")
	}
	opts := append(chromedp.DefaultExecAllocatorOptions[:], chromedp.ExecPath(path), chromedp.NoSandbox,
		chromedp.DisableGPU, chromedp.UserDataDir(tb.TempDir()), chromedp.WindowSize(1280, 900))
	alloc, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	tab, cancel := chromedp.NewContext(alloc)
	tb.Cleanup(func() { cancel(); cancelAlloc() })
	mustDo(tb, chromedp.Do(tab))
	return tab
}
