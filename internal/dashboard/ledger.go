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
	"strconv"
	"time"

	gitopsv1alpha1 "github.com/siteops/siteops/apis/gitops/v1alpha1"
	"github.com/siteops/siteops/gitops/ledger"
	"github.com/siteops/siteops/internal/sitesyncledger"
)

// defaultWindow is the Ledger view's window unless ?window= says otherwise, as for `siteops ledger`.
func defaultWindow() string {
	return strconv.Itoa(int(sitesyncledger.DefaultWindow/(24*time.Hour))) + "d"
}

// ledgerWindows are the windows the Ledger view links to.
func ledgerWindows() []string { return []string{"1d", "7d", "30d", "90d"} }

// ledgerPage is the Ledger view of one SiteSync: the four DORA metrics over the window, for the SiteSync and
// per site.
type ledgerPage struct {
	Namespace, Name string
	Found           bool
	Window          string
	Windows         []string
	// Error says why there are no figures: a window that does not parse, or a rendered branch not read.
	Error  string
	Report *ledger.Report
}

func (s *Server) ledgerView(r *http.Request) view {
	ns, name := r.PathValue("namespace"), r.PathValue("name")
	window := r.URL.Query().Get("window")
	if window == "" {
		window = defaultWindow()
	}
	base := "/sitesyncs/" + ns + "/" + name
	return view{key: ns + "/" + name, title: "Ledger · " + ns + "/" + name,
		crumbs: []crumb{{base, ns + "/" + name}, {base + "/ledger?window=" + window, "ledger"}},
		render: func(ctx context.Context) (string, any, bool, error) {
			ss, err := s.get(ctx, ns, name)
			p := ledgerPage{Namespace: ns, Name: name, Found: ss != nil, Window: window, Windows: ledgerWindows()}
			if err != nil || ss == nil {
				return "ledger", p, p.Found, err
			}
			p.Report, p.Error = s.ledger(ctx, ss, window)
			return "ledger", p, true, nil
		}}
}

// ledger is the delivery ledger of ss over the window ending now, computed as the manager's metrics are:
// the rendered commits of the window read from Git (from status.renderedRevision when the clone cache has
// it), with the delivery record of status.history. The error is the page's note when there is no ledger.
func (s *Server) ledger(ctx context.Context, ss *gitopsv1alpha1.SiteSync, window string) (*ledger.Report, string) {
	span, err := sitesyncledger.ParseWindow(window)
	if err != nil {
		return nil, "?" + err.Error()
	}
	if s.opts.Rendered.WorkDir == "" {
		return nil, notReadable(errNoGit)
	}
	now := s.opts.Clock.Now()
	w := ledger.Window{From: now.Add(-span), To: now}
	ctx, cancel := context.WithTimeout(ctx, historyTimeout)
	defer cancel()
	rep, err := sitesyncledger.Read(ctx, s.opts.Syncer, ss, s.opts.Rendered, ss.Status.RenderedRevision, w)
	if err != nil {
		return nil, notReadable(err)
	}
	return &rep, ""
}
