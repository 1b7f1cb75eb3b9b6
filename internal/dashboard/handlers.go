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
	"bytes"
	"context"
	"fmt"
	"html/template"
	"net"
	"net/http"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"sigs.k8s.io/controller-runtime/pkg/client"

	gitopsv1alpha1 "github.com/siteops/siteops/apis/gitops/v1alpha1"
)

// view is what one page shows: the SiteSync it follows (namespace/name; "" for all), its title and links,
// and how to render its content from the cache.
type view struct {
	key    string
	title  string
	crumbs []crumb
	render func(ctx context.Context) (name string, data any, found bool, err error)
}

// crumb is one link of the page header's trail.
type crumb struct{ Href, Text string }

// Handler serves the views at /, /sitesyncs/NAMESPACE/NAME, /sitesyncs/NAMESPACE/NAME/sites/SITE and
// /sitesyncs/NAMESPACE/NAME/ledger, their event streams under /events/, and the stylesheet and script under
// /static/.
func (s *Server) Handler() http.Handler {
	mux := http.NewServeMux()
	mux.Handle("GET /static/", http.StripPrefix("/static/", http.FileServerFS(staticFiles())))
	routes := map[string]func(*http.Request) view{
		"/{$}":                          s.fleetView,
		"/sitesyncs/{namespace}/{name}": s.rolloutView,
		"/sitesyncs/{namespace}/{name}/sites/{site}": s.siteView,
		"/sitesyncs/{namespace}/{name}/ledger":       s.ledgerView,
	}
	for path, resolve := range routes {
		mux.HandleFunc("GET "+path, s.page(resolve))
		mux.HandleFunc("GET /events"+path, s.events(resolve))
	}
	return guard(mux)
}

func (s *Server) fleetView(*http.Request) view {
	return view{title: "Fleet", render: func(ctx context.Context) (string, any, bool, error) {
		list := &gitopsv1alpha1.SiteSyncList{}
		if err := s.cache.List(ctx, list, client.InNamespace(s.opts.Namespace)); err != nil {
			return "", nil, false, fmt.Errorf("listing SiteSyncs: %w", err)
		}
		return "fleet", fleetRows(list.Items), true, nil
	}}
}

func (s *Server) rolloutView(r *http.Request) view {
	ns, name := r.PathValue("namespace"), r.PathValue("name")
	return view{key: ns + "/" + name, title: ns + "/" + name,
		crumbs: []crumb{{"/sitesyncs/" + ns + "/" + name, ns + "/" + name}},
		render: func(ctx context.Context) (string, any, bool, error) {
			ss, err := s.get(ctx, ns, name)
			return "rollout", newRolloutPage(ns, name, ss), ss != nil, err
		}}
}

func (s *Server) siteView(r *http.Request) view {
	ns, name, site := r.PathValue("namespace"), r.PathValue("name"), r.PathValue("site")
	base := "/sitesyncs/" + ns + "/" + name
	return view{key: ns + "/" + name, title: site + " · " + ns + "/" + name,
		crumbs: []crumb{{base, ns + "/" + name}, {base + "/sites/" + site, site}},
		render: func(ctx context.Context) (string, any, bool, error) {
			ss, err := s.get(ctx, ns, name)
			p := newSitePage(ns, name, site, ss)
			if err != nil || !p.Found {
				return "site", p, p.Found, err
			}
			if h, err := s.siteHistory(ctx, ss, site); err != nil {
				p.HistoryError = notReadable(err)
			} else {
				p.withHistory(ss, h)
			}
			return "site", p, true, nil
		}}
}

// get reads a SiteSync from the cache; nil when there is none, or when it is outside the dashboard's namespace.
func (s *Server) get(ctx context.Context, ns, name string) (*gitopsv1alpha1.SiteSync, error) {
	if s.opts.Namespace != "" && ns != s.opts.Namespace {
		return nil, nil
	}
	ss := &gitopsv1alpha1.SiteSync{}
	err := s.cache.Get(ctx, client.ObjectKey{Namespace: ns, Name: name}, ss)
	switch {
	case apierrors.IsNotFound(err):
		return nil, nil
	case err != nil:
		return nil, fmt.Errorf("reading SiteSync %s/%s: %w", ns, name, err)
	}
	return ss, nil
}

// content renders a view's content, the part of the page its event stream replaces.
func (s *Server) content(ctx context.Context, v view) ([]byte, bool, error) {
	name, data, found, err := v.render(ctx)
	if err != nil {
		return nil, false, err
	}
	var b bytes.Buffer
	if err := s.tmpl.ExecuteTemplate(&b, name, data); err != nil {
		return nil, false, fmt.Errorf("rendering the %s view: %w", name, err)
	}
	return b.Bytes(), found, nil
}

// page serves a view as a whole page; a SiteSync or site not there is a 404 whose page still updates live.
func (s *Server) page(resolve func(*http.Request) view) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		v := resolve(r)
		body, found, err := s.content(r.Context(), v)
		if err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		var b bytes.Buffer
		if err := s.tmpl.ExecuteTemplate(&b, "layout", struct {
			Title  string
			Crumbs []crumb
			Body   template.HTML
		}{v.title, v.crumbs, template.HTML(body)}); err != nil { //nolint:gosec // rendered by html/template
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		if !found {
			w.WriteHeader(http.StatusNotFound)
		}
		_, _ = w.Write(b.Bytes()) // a client gone away is no error of the dashboard's
	}
}

// guard refuses requests addressed to a host other than a loopback one, which a page of another site could
// send through DNS rebinding, and sets headers that keep the pages from being framed or loading other origins.
func guard(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		host, _, err := net.SplitHostPort(r.Host)
		if err != nil {
			host = r.Host
		}
		if !loopbackHost(host) {
			http.Error(w, "the dashboard answers requests for localhost only", http.StatusForbidden)
			return
		}
		h := w.Header()
		h.Set("Content-Security-Policy", "default-src 'self'; frame-ancestors 'none'")
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("Referrer-Policy", "no-referrer")
		next.ServeHTTP(w, r)
	})
}
