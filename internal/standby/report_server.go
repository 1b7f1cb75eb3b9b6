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

package standby

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"net/http"
	"time"

	"github.com/go-logr/logr"
	"k8s.io/client-go/rest"
	certutil "k8s.io/client-go/util/cert"
	"sigs.k8s.io/controller-runtime/pkg/metrics/filters"
)

// ReportServer serves the standby report (GET /standby) and the leader's write report (GET /writes) for the
// preview Service and the pre-promotion AnalysisTemplate. GET /shadow is the standby report's deprecated path,
// kept so that an analysis of an older release still reads it. It runs whether or not the manager leads. With
// Secure, as the metrics endpoint: HTTPS with a self-signed certificate, and every request authenticated
// (TokenReview of its bearer token) and authorized (SubjectAccessReview: get on the request's non-resource
// URL); else plain HTTP.
type ReportServer struct {
	// Addr is the address to listen on.
	Addr string
	// Standby and Leader are the reports of the standby's and the leader's writes.
	Standby, Leader *Report
	// Leadership says whether the manager leads, for the reports' mode.
	Leadership interface{ Leading() bool }
	// Secure serves HTTPS with authentication and authorization.
	Secure bool
	// Config and HTTPClient reach the apiserver for the reviews; TLSOpts are the metrics server's.
	Config     *rest.Config
	HTTPClient *http.Client
	TLSOpts    []func(*tls.Config)
	// Log gets the authorization filter's lines.
	Log logr.Logger
}

// NeedLeaderElection is false: the report matters most while the manager does not lead.
func (s *ReportServer) NeedLeaderElection() bool { return false }

// Start serves until ctx ends.
func (s *ReportServer) Start(ctx context.Context) error {
	handler, err := s.handler()
	if err != nil {
		return err
	}
	l, err := s.listen()
	if err != nil {
		return err
	}
	srv := newHTTPServer(handler)
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

// newHTTPServer is the report's HTTP server. It closes every connection after its response: a client that
// kept one alive would go on reading the pod it first reached through the preview Service after Argo Rollouts
// pointed the Service at another colour (as through kube-proxy, an established connection stays with its pod),
// so a pre-promotion analysis could judge the wrong colour's report.
func newHTTPServer(handler http.Handler) *http.Server {
	srv := &http.Server{Handler: handler, ReadHeaderTimeout: 5 * time.Second}
	srv.SetKeepAlivesEnabled(false)
	return srv
}

// handler serves both reports, behind authentication and authorization when secure.
func (s *ReportServer) handler() (http.Handler, error) {
	mux := http.NewServeMux()
	leading := s.Leadership.Leading
	mux.Handle("GET /standby", s.Standby.Handler(leading))
	mux.Handle("GET /shadow", s.Standby.Handler(leading))
	mux.Handle("GET /writes", s.Leader.Handler(leading))
	if !s.Secure {
		return mux, nil
	}
	filter, err := filters.WithAuthenticationAndAuthorization(s.Config, s.HTTPClient)
	if err != nil {
		return nil, fmt.Errorf("setting up the standby report's authentication: %w", err)
	}
	h, err := filter(s.Log, mux)
	if err != nil {
		return nil, fmt.Errorf("setting up the standby report's authorization: %w", err)
	}
	return h, nil
}

// listen listens on Addr: over TLS with a self-signed certificate when secure, as the metrics endpoint does
// without a certificate folder.
func (s *ReportServer) listen() (net.Listener, error) {
	l, err := net.Listen("tcp", s.Addr)
	if err != nil {
		return nil, fmt.Errorf("listening for the standby report on %s: %w", s.Addr, err)
	}
	if !s.Secure {
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
	for _, opt := range s.TLSOpts {
		opt(cfg)
	}
	return tls.NewListener(l, cfg), nil
}
