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
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"time"

	"github.com/siteops/siteops/apis"
	"github.com/siteops/siteops/gitops"
	"github.com/siteops/siteops/internal/dashboard"
)

// runDashboard serves the read-only web dashboard on a loopback address until ctx ends (Ctrl-C). It reads the
// SiteSyncs with the kubeconfig's credentials, as kubectl proxy does: no endpoint runs in the cluster. The
// rendered branches (the Site view's history, the Ledger view) it fetches as `siteops ledger` does.
func runDashboard(ctx context.Context, sy *gitops.Syncer, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("dashboard", "[--addr 127.0.0.1:PORT] [--kubeconfig FILE] [-n NAMESPACE | -A] "+
		"[--target-url URL]", stderr)
	addr := fs.String("addr", "127.0.0.1:8088", "loopback address to serve the dashboard on")
	kubeconfig := fs.String("kubeconfig", "", "kubeconfig file (default: $KUBECONFIG, then ~/.kube/config)")
	namespace := fs.String("n", "", "namespace of the SiteSyncs (default: the kubeconfig context's)")
	all := fs.Bool("A", false, "SiteSyncs of every namespace")
	targetURL := fs.String("target-url", "", "repository of the rendered branches (default: each SiteSync's target)")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	l, err := dashboard.Listen(*addr)
	if errors.Is(err, dashboard.ErrNotLoopback) {
		return usageError{err.Error()}
	}
	if err != nil {
		return err
	}
	defer func() { _ = l.Close() }()
	cfg, ns, err := loadKubeconfig(*kubeconfig, *namespace, *all)
	if err != nil {
		return err
	}
	scheme, err := apis.NewScheme()
	if err != nil {
		return err
	}
	rendered, err := renderedSource("dashboard", *targetURL)
	if err != nil {
		return err
	}
	srv, err := dashboard.New(cfg, scheme, dashboard.Options{Namespace: ns, Syncer: sy, Rendered: rendered})
	if err != nil {
		return err
	}
	if err := srv.Start(ctx); err != nil {
		return err
	}
	hs := &http.Server{Handler: srv.Handler(), ReadHeaderTimeout: 10 * time.Second,
		BaseContext: func(net.Listener) context.Context { return ctx }} // ends the pages' event streams at Ctrl-C
	_, _ = fmt.Fprintf(stdout, "siteops dashboard: http://%s/ (Ctrl-C stops it)\n", l.Addr())
	errc := make(chan error, 1)
	go func() { errc <- hs.Serve(l) }()
	select {
	case err := <-errc:
		return fmt.Errorf("serving: %w", err)
	case <-ctx.Done():
	}
	stop, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := hs.Shutdown(stop); err != nil && !errors.Is(err, context.DeadlineExceeded) {
		return fmt.Errorf("stopping: %w", err)
	}
	return nil
}
