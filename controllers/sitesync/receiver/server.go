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

package receiver

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"time"

	"github.com/go-logr/logr"
	"k8s.io/utils/clock"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// DefaultAddress is where the push receiver listens unless told otherwise.
const DefaultAddress = "127.0.0.1:9292"

// Server serves the push receiver on its own address as a manager Runnable. It runs on every
// replica (no leader election), so any pod behind the Service can take a webhook.
type Server struct {
	// Addr is the listen address, e.g. DefaultAddress.
	Addr    string
	Handler http.Handler
	Log     logr.Logger
	// Started, when set, receives the bound address once the listener is up (for an address with port 0).
	Started chan<- string
}

// NewServer builds the receiver served on addr: c reads SiteSyncs and patches their trigger
// annotation (mgr.GetClient()), apiReader reads the receiver Secrets uncached (mgr.GetAPIReader()), clk
// stamps the trigger.
func NewServer(addr string, c client.Client, apiReader client.Reader, clk clock.PassiveClock) *Server {
	log := ctrl.Log.WithName("sitesync-receiver")
	return &Server{Addr: addr, Handler: NewHandler(c, apiReader, clk, log), Log: log}
}

// NeedLeaderElection is false: every replica takes webhooks.
func (s *Server) NeedLeaderElection() bool { return false }

// Start listens on Addr and serves until ctx ends, then shuts down gracefully.
func (s *Server) Start(ctx context.Context) error {
	ln, err := net.Listen("tcp", s.Addr)
	if err != nil {
		return fmt.Errorf("push receiver listening on %s: %w", s.Addr, err)
	}
	mux := http.NewServeMux()
	mux.Handle(PathPrefix, s.Handler)
	srv := &http.Server{
		Handler:           mux,
		ReadHeaderTimeout: 10 * time.Second,
		ReadTimeout:       30 * time.Second,
		WriteTimeout:      30 * time.Second,
		MaxHeaderBytes:    64 << 10,
	}
	s.Log.Info("push receiver listening", "address", ln.Addr().String())
	if s.Started != nil {
		s.Started <- ln.Addr().String()
	}
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ln) }()
	select {
	case err := <-done:
		return fmt.Errorf("push receiver on %s: %w", s.Addr, err)
	case <-ctx.Done():
	}
	shutdownCtx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := srv.Shutdown(shutdownCtx); err != nil {
		return fmt.Errorf("shutting down push receiver: %w", err)
	}
	if err := <-done; err != nil && !errors.Is(err, http.ErrServerClosed) {
		return fmt.Errorf("push receiver on %s: %w", s.Addr, err)
	}
	return nil
}
