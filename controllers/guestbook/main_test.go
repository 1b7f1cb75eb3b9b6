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

package guestbook

import (
	"context"
	"fmt"
	"os"
	"testing"

	"github.com/go-logr/logr"
	"github.com/go-logr/logr/funcr"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/utils/clock"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/config"
	"sigs.k8s.io/controller-runtime/pkg/manager"
	"sigs.k8s.io/controller-runtime/pkg/metrics"
	"sigs.k8s.io/controller-runtime/pkg/metrics/server"

	"github.com/siteops/siteops/test/testenv"
)

// env is the package's control plane; k8s reaches it without a cache, as a user would.
var (
	env *testenv.Env
	k8s client.Client
	// testMetrics are the leader reconcilers' Observer, registered as the manager registers its own.
	testMetrics *Metrics
)

// TestMain starts one control plane and one manager running the Guestbook controller for every test of the
// package; the race test starts more managers beside it.
func TestMain(m *testing.M) {
	os.Exit(runMain(m))
}

func runMain(m *testing.M) int {
	logger := logr.Discard()
	if os.Getenv("GUESTBOOK_TEST_DEBUG") != "" {
		logger = funcr.New(func(prefix, args string) { fmt.Fprintln(os.Stderr, prefix, args) }, funcr.Options{Verbosity: 1})
	}
	ctrl.SetLogger(logger)
	var err error
	env, err = testenv.Start(testenv.Options{})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer func() { _ = env.Stop() }()
	if k8s, err = client.New(env.Config, client.Options{Scheme: env.Scheme}); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	if testMetrics, err = NewMetrics(metrics.Registry); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	if err := startManager(ctx); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return m.Run()
}

// The unmanaged namespaces are left alone by the managers of this package: tests reconcile in them by hand,
// each in its own (envtest runs no namespace controller, so a deleted namespace stays Terminating).
const (
	unmanagedNamespace        = "gb-unmanaged"
	unmanagedReadsNamespace   = "gb-unmanaged-reads"
	unmanagedAppliesNamespace = "gb-unmanaged-applies"
)

// startManager starts a manager with a Guestbook Reconciler until ctx ends: metrics and probes off, no
// leader election, so several can run side by side; its cache does not see the unmanaged namespaces.
func startManager(ctx context.Context) error {
	mgr, err := ctrl.NewManager(env.Config, manager.Options{
		Scheme: env.Scheme,
		Cache: cache.Options{DefaultFieldSelector: fields.AndSelectors(
			fields.OneTermNotEqualSelector("metadata.namespace", unmanagedNamespace),
			fields.OneTermNotEqualSelector("metadata.namespace", unmanagedReadsNamespace),
			fields.OneTermNotEqualSelector("metadata.namespace", unmanagedAppliesNamespace))},
		Metrics:                server.Options{BindAddress: "0"},
		HealthProbeBindAddress: "0",
		LeaderElection:         false,
		Controller:             config.Controller{SkipNameValidation: ptr.To(true)},
	})
	if err != nil {
		return fmt.Errorf("creating manager: %w", err)
	}
	if err := (&Reconciler{
		Client:       mgr.GetClient(),
		ConfigHashes: &ConfigHashes{}, // as cmd/manager wires it
		Scheme:       mgr.GetScheme(),
		Recorder:     mgr.GetEventRecorder("siteops-guestbook"),
		Clock:        clock.RealClock{},
		Observer:     testMetrics,
	}).SetupWithManager(mgr); err != nil {
		return err
	}
	go func() {
		if err := mgr.Start(ctx); err != nil {
			fmt.Fprintln(os.Stderr, "manager stopped:", err)
		}
	}()
	if !mgr.GetCache().WaitForCacheSync(ctx) {
		return fmt.Errorf("manager cache did not sync")
	}
	return nil
}
