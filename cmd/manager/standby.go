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
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"net/http"
	"time"

	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/events"
	certutil "k8s.io/client-go/util/cert"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/metrics/filters"

	"github.com/siteops/siteops/internal/leadership"
	"github.com/siteops/siteops/internal/standby"
)

// writeClients are the clients the reconcilers get: the leader's, which records and persists its writes while
// the manager leads and refuses them otherwise; the standby's, which records them and sends them as dry runs;
// and fenced, the manager's client with only the fence, for the push receiver.
type writeClients struct {
	leader, standby, fenced     client.Client
	leaderReport, standbyReport *standby.Report
	discard                     events.EventRecorder
}

// newWriteClients wraps the manager's client for the leader, behind fence, and for standby mode. The fence is
// outermost: a refused write is not recorded, as it never reaches the apiserver.
func newWriteClients(mgr ctrl.Manager, fence *leadership.Fence, m *standby.Metrics) writeClients {
	log := ctrl.Log.WithName("writes")
	lr := &standby.Report{Log: log, Metrics: m}
	sr := &standby.Report{Log: log, Metrics: m}
	return writeClients{
		leader:        leadership.NewClient(standby.NewWriteRecorder(mgr.GetClient(), lr, false), fence),
		standby:       standby.NewWriteRecorder(mgr.GetClient(), sr, true),
		fenced:        leadership.NewClient(mgr.GetClient(), fence),
		leaderReport:  lr,
		standbyReport: sr,
		discard:       &events.FakeRecorder{},
	}
}

// standbyServer serves the standby report (GET /standby) and the leader's write report (GET /writes) for the
// preview Service and the pre-promotion AnalysisTemplate. It runs whether or not the manager leads. With
// secure, as the metrics endpoint: HTTPS with a self-signed certificate, and every request authenticated
// (TokenReview of its bearer token) and authorized (SubjectAccessReview: get on the non-resource URL /standby or
// /writes); else plain HTTP.
type standbyServer struct {
	addr       string
	clients    writeClients
	leadership standby.Leadership
	secure     bool
	// config and httpClient reach the apiserver for the reviews; tlsOpts are the metrics server's.
	config     *rest.Config
	httpClient *http.Client
	tlsOpts    []func(*tls.Config)
}

// NeedLeaderElection is false: the report matters most while the manager does not lead.
func (s *standbyServer) NeedLeaderElection() bool { return false }

// Start serves until ctx ends.
func (s *standbyServer) Start(ctx context.Context) error {
	handler, err := s.handler()
	if err != nil {
		return err
	}
	l, err := s.listen()
	if err != nil {
		return err
	}
	srv := newReportServer(handler)
	go func() {
		<-ctx.Done()
		shutdown, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = srv.Shutdown(shutdown)
	}()
	if err := srv.Serve(l); err != nil && !errors.Is(err, http.ErrServerClosed) {
		return fmt.Errorf("serving the standby report: %w", err)
	}
	return nil
}

// newReportServer is the report's HTTP server. It closes every connection after its response: a client that
// kept one alive would go on reading the pod it first reached through the preview Service after Argo Rollouts
// pointed the Service at another colour (as through kube-proxy, an established connection stays with its pod),
// so a pre-promotion analysis could judge the wrong colour's report.
func newReportServer(handler http.Handler) *http.Server {
	srv := &http.Server{Handler: handler, ReadHeaderTimeout: 5 * time.Second}
	srv.SetKeepAlivesEnabled(false)
	return srv
}

// handler serves both reports, behind authentication and authorization when secure.
func (s *standbyServer) handler() (http.Handler, error) {
	mux := http.NewServeMux()
	leading := s.leadership.Leading
	mux.Handle("GET /standby", s.clients.standbyReport.Handler(leading))
	// GET /shadow is the report's deprecated path, kept so that an analysis of an older release still reads it.
	mux.Handle("GET /shadow", s.clients.standbyReport.Handler(leading))
	mux.Handle("GET /writes", s.clients.leaderReport.Handler(leading))
	if !s.secure {
		return mux, nil
	}
	filter, err := filters.WithAuthenticationAndAuthorization(s.config, s.httpClient)
	if err != nil {
		return nil, fmt.Errorf("setting up the standby report's authentication: %w", err)
	}
	h, err := filter(ctrl.Log.WithName("standby-report"), mux)
	if err != nil {
		return nil, fmt.Errorf("setting up the standby report's authorization: %w", err)
	}
	return h, nil
}

// listen listens on addr: over TLS with a self-signed certificate when secure, as the metrics endpoint does
// without a certificate folder.
func (s *standbyServer) listen() (net.Listener, error) {
	l, err := net.Listen("tcp", s.addr)
	if err != nil {
		return nil, fmt.Errorf("listening for the standby report on %s: %w", s.addr, err)
	}
	if !s.secure {
		return l, nil
	}
	cert, key, err := certutil.GenerateSelfSignedCertKey("localhost", []net.IP{{127, 0, 0, 1}}, nil)
	if err != nil {
		_ = l.Close()
		return nil, fmt.Errorf("generating the standby report's certificate: %w", err)
	}
	pair, err := tls.X509KeyPair(cert, key)
	if err != nil {
		_ = l.Close()
		return nil, fmt.Errorf("loading the standby report's certificate: %w", err)
	}
	cfg := &tls.Config{Certificates: []tls.Certificate{pair}, MinVersion: tls.VersionTLS12}
	for _, opt := range s.tlsOpts {
		opt(cfg)
	}
	return tls.NewListener(l, cfg), nil
}
