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

// Package dashboard serves siteops' read-only web dashboard: the Fleet of SiteSyncs, each SiteSync's rollout
// as a waves × sites grid, each site's state and rendered history, and each SiteSync's delivery ledger. It
// reads the SiteSyncs with the credentials it is given (the user's kubeconfig, as kubectl proxy does), keeps
// them in a watch-fed cache, and pushes each page's new content to the browser with Server-Sent Events when a
// SiteSync it shows changes. The rendered branches it reads from Git with the credentials it is given. It
// serves only GET, and only to requests addressed to a loopback host.
package dashboard

import (
	"context"
	"errors"
	"fmt"
	"html/template"
	"net"
	"strings"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/rest"
	toolscache "k8s.io/client-go/tools/cache"
	"k8s.io/utils/clock"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"

	gitopsv1alpha1 "github.com/siteops/siteops/apis/gitops/v1alpha1"
	"github.com/siteops/siteops/gitops"
	"github.com/siteops/siteops/internal/sitesyncledger"
)

// Options configure a Server.
type Options struct {
	// Namespace limits the dashboard to the SiteSyncs of one namespace; empty means every namespace.
	Namespace string
	// Clock dates the pages' relative times ("3m ago") and ends the Ledger view's window; nil means the real
	// clock.
	Clock clock.PassiveClock
	// Syncer reads the rendered branches for the Site view's history and the Ledger view; nil means one of
	// the Server's own.
	Syncer *gitops.Syncer
	// Rendered says where the rendered branches are fetched from (clone cache folder, credentials, a URL
	// reachable from here); without a WorkDir the Site and Ledger views say the history is not read.
	Rendered sitesyncledger.Source
}

// Server is the dashboard: a cache of the SiteSyncs fed by one watch, the open pages' event streams, and the
// templates that render the views.
type Server struct {
	cfg    *rest.Config
	scheme *runtime.Scheme
	opts   Options
	cache  cache.Cache
	tmpl   *template.Template
	hub    hub
	hist   historyMemo
}

// New returns a Server reading SiteSyncs with cfg's credentials. Start it before serving its Handler.
func New(cfg *rest.Config, scheme *runtime.Scheme, opts Options) (*Server, error) {
	if opts.Clock == nil {
		opts.Clock = clock.RealClock{}
	}
	if opts.Syncer == nil {
		opts.Syncer = gitops.NewSyncer(gitops.SyncerOptions{})
	}
	tmpl, err := parseTemplates(opts.Clock)
	if err != nil {
		return nil, fmt.Errorf("parsing the dashboard's templates: %w", err)
	}
	copts := cache.Options{Scheme: scheme, DefaultTransform: cache.TransformStripManagedFields()}
	if opts.Namespace != "" {
		copts.DefaultNamespaces = map[string]cache.Config{opts.Namespace: {}}
	}
	c, err := cache.New(cfg, copts)
	if err != nil {
		return nil, fmt.Errorf("making the SiteSync cache: %w", err)
	}
	return &Server{cfg: cfg, scheme: scheme, opts: opts, cache: c, tmpl: tmpl}, nil
}

// Start checks that the credentials may list SiteSyncs, starts the watch, and returns once the cache holds
// every SiteSync. The watch runs until ctx ends.
func (s *Server) Start(ctx context.Context) error {
	direct, err := client.New(s.cfg, client.Options{Scheme: s.scheme})
	if err != nil {
		return fmt.Errorf("connecting to the cluster: %w", err)
	}
	// A watch the credentials may not open would retry quietly for ever: ask once, and say why not.
	if err := direct.List(ctx, &gitopsv1alpha1.SiteSyncList{}, client.InNamespace(s.opts.Namespace),
		client.Limit(1)); err != nil {
		return fmt.Errorf("listing SiteSyncs: %w", err)
	}
	inf, err := s.cache.GetInformer(ctx, &gitopsv1alpha1.SiteSync{})
	if err != nil {
		return fmt.Errorf("watching SiteSyncs: %w", err)
	}
	if _, err := inf.AddEventHandler(toolscache.ResourceEventHandlerFuncs{
		AddFunc:    func(obj any) { s.changed(obj) },
		UpdateFunc: func(_, obj any) { s.changed(obj) },
		DeleteFunc: func(obj any) { s.changed(obj) },
	}); err != nil {
		return fmt.Errorf("watching SiteSyncs: %w", err)
	}
	errc := make(chan error, 1)
	go func() { errc <- s.cache.Start(ctx) }()
	if !s.cache.WaitForCacheSync(ctx) {
		select {
		case err := <-errc:
			return fmt.Errorf("watching SiteSyncs: %w", err)
		default:
			return fmt.Errorf("watching SiteSyncs: %w", ctx.Err())
		}
	}
	return nil
}

// changed wakes the pages that show the SiteSync obj, which the watch added, updated or deleted.
func (s *Server) changed(obj any) {
	if d, ok := obj.(toolscache.DeletedFinalStateUnknown); ok {
		obj = d.Obj
	}
	if o, ok := obj.(client.Object); ok {
		s.hub.changed(o.GetNamespace() + "/" + o.GetName())
	}
}

// ErrNotLoopback is Listen's error for an address that is not a loopback one.
var ErrNotLoopback = errors.New("the dashboard listens on a loopback address only, such as 127.0.0.1")

// Listen listens on addr, which must name a loopback address (127.0.0.1:8080, [::1]:0, localhost:9000): the
// dashboard shows what the user's credentials may read, so it is never served to other hosts.
func Listen(addr string) (net.Listener, error) {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, fmt.Errorf("address %q: %w", addr, err)
	}
	if !loopbackHost(host) {
		return nil, fmt.Errorf("address %q: %w", addr, ErrNotLoopback)
	}
	if strings.EqualFold(host, "localhost") {
		addr = net.JoinHostPort("127.0.0.1", addr[strings.LastIndex(addr, ":")+1:])
	}
	l, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("listening on %s: %w", addr, err)
	}
	return l, nil
}

// loopbackHost reports whether host (a name or an IP, without port) is localhost or a loopback IP.
func loopbackHost(host string) bool {
	host = strings.TrimSuffix(strings.TrimPrefix(host, "["), "]")
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}
