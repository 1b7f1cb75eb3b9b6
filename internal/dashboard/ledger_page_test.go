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
	"fmt"
	"math"
	"strconv"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	gitopsv1alpha1 "github.com/siteops/siteops/apis/gitops/v1alpha1"
	"github.com/siteops/siteops/gitops/ledger"
	"github.com/siteops/siteops/internal/sitesyncledger"
)

// TestLedgerViewShowsTheFourMetricsOfAScriptedHistory opens the Ledger view from the Fleet view in Chromium,
// over the fleet's rendered branch and this delivery record (status.history):
//
//	a  committed 5h ago, every site Delivered 3h ago: lead time 2h (r1: paris, berlin).
//	b  committed 2h ago, halted by paris 90m ago, every site Delivered again 60m ago: restored in 30m (r2:
//	   paris; r4 reverts it).
//	c  committed 40m ago, not delivered yet (r3: berlin).
//
// By hand: 3 deployments in the 7 days (a, b, c), b failed: 33.3%; lead time 2h (one change); time to
// restore 30m (one restore); paris 2 deployments (a, b), 1 failed: 50%; berlin 2 (a, c), none failed. The
// page's figures are also those the ledger package computes from the same branch and record.
func TestLedgerViewShowsTheFourMetricsOfAScriptedHistory(t *testing.T) {
	f := newRenderedFleet(t)
	ns := newNamespace(t)
	now := time.Now().Truncate(time.Second)
	ago := func(d time.Duration) *metav1.Time { m := metav1.NewTime(now.Add(-d)); return &m }
	history := []gitopsv1alpha1.RevisionRecord{
		{Revision: f.c, CommittedAt: ago(40 * time.Minute), PublishedAt: ago(30 * time.Minute)},
		{Revision: f.b, CommittedAt: ago(2 * time.Hour), PublishedAt: ago(100 * time.Minute),
			HaltedAt: ago(90 * time.Minute), FailedSites: []string{"paris"}, RestoredAt: ago(time.Hour)},
		{Revision: f.a, CommittedAt: ago(5 * time.Hour), PublishedAt: ago(4 * time.Hour), DeliveredAt: ago(3 * time.Hour)},
	}
	newFleetSiteSync(t, ns, f, history)
	url := startDashboardWith(t, Options{Namespace: ns, Rendered: sitesyncledger.Source{WorkDir: t.TempDir()}})
	tab := newBrowser(t)

	browse(tab, t, "opening the Fleet view", chromedp.Navigate(url+"/"), visible(`#sitesync-`+ns+`-shop a.ledger`))
	click(tab, t, "opening the Ledger view", `#sitesync-`+ns+`-shop a.ledger`,
		visible(`#metrics`))
	if w := read(tab, t, "reading the window", text(`#window`)); w != "30d" {
		t.Errorf("the Ledger view opens on window %q, want siteops ledger's 30d", w)
	}
	click(tab, t, "choosing 7 days", `.windows a[href="?window=7d"]`,
		visible(`.windows a.current[href="?window=7d"]`), visible(`#metrics`))
	if w := read(tab, t, "reading the window", text(`#window`)); w != "7d" {
		t.Fatalf("window %q after choosing 7d", w)
	}
	byHand := map[string]string{
		`#deployment-frequency td:nth-child(3)`: "3 deployments",
		`#change-failure-rate .value`:           "33.3%",
		`#lead-time .value`:                     "median 2h0m0s, mean 2h0m0s, max 2h0m0s",
		`#time-to-restore .value`:               "median 30m0s, mean 30m0s, max 30m0s",
		`#ledger-site-paris .failure-rate`:      "50%",
		`#ledger-site-berlin .deployments`:      "2",
	}
	var sels []string
	for sel := range byHand {
		sels = append(sels, sel)
	}
	rep := ledgerOf(t, f, ns, 7*24*time.Hour)
	pkg := packageFigures(rep)
	for sel := range pkg {
		sels = append(sels, sel)
	}
	shown := read(tab, t, "reading the figures", texts(sels...))
	for sel, want := range byHand {
		if got := shown[sel]; got != want {
			t.Errorf("%s shows %q, want %q (by hand)", sel, got, want)
		}
	}
	for sel, want := range pkg {
		if got := shown[sel]; got != want {
			t.Errorf("%s shows %q, the ledger package computes %q", sel, got, want)
		}
	}
	if len(rep.Sites) != 2 {
		t.Errorf("the ledger package has %d sites, want paris and berlin: %+v", len(rep.Sites), rep.Sites)
	}
	screenshot(tab, t, "dashboard-ledger")
}

// packageFigures are the page's figures, by CSS selector, as rep holds them.
func packageFigures(rep ledger.Report) map[string]string {
	pkg := map[string]string{
		`#deployment-frequency .value`:         fmt.Sprintf("%.2f/day", rep.DeploymentsPerDay),
		`#change-failure-rate .value`:          pct(rep.ChangeFailureRate),
		`#change-failure-rate td:nth-child(3)`: fmt.Sprintf("%d failed", rep.FailedChanges),
		`#lead-time td:nth-child(3)`:           fmt.Sprintf("%d changes", rep.LeadTime.Count),
		`#time-to-restore td:nth-child(3)`:     fmt.Sprintf("%d restores", rep.TimeToRestore.Count),
	}
	for _, s := range rep.Sites {
		row := `#ledger-site-` + s.Name
		pkg[row+` .deployments`] = strconv.Itoa(s.Deployments)
		pkg[row+` .per-day`] = fmt.Sprintf("%.2f", s.DeploymentsPerDay)
		pkg[row+` .failed`] = strconv.Itoa(s.FailedChanges)
		pkg[row+` .failure-rate`] = pct(s.ChangeFailureRate)
	}
	return pkg
}

// ledgerOf is the ledger of SiteSync shop over the span ending now, as sitesyncledger computes it for
// `siteops ledger`.
func ledgerOf(t *testing.T, f *renderedFleet, ns string, span time.Duration) ledger.Report {
	t.Helper()
	ss := &gitopsv1alpha1.SiteSync{}
	if err := k8s.Get(context.Background(), client.ObjectKey{Namespace: ns, Name: "shop"}, ss); err != nil {
		t.Fatal(err)
	}
	now := time.Now()
	rep, err := sitesyncledger.Read(context.Background(), f.syncer, ss, sitesyncledger.Source{WorkDir: t.TempDir()},
		"", ledger.Window{From: now.Add(-span), To: now})
	if err != nil {
		t.Fatal(err)
	}
	return rep
}

// pct is a rate as the page prints it, a percentage to a tenth.
func pct(f float64) string { return strconv.FormatFloat(math.Round(1000*f)/10, 'f', -1, 64) + "%" }
