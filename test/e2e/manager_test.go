//go:build e2e

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

package e2e

import (
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/siteops/siteops/test/managerproc"
)

var buildManagerOnce struct {
	sync.Once
	path string
	err  error
}

// e2eVersion is the VERSION the end-to-end tests build the binaries with.
const e2eVersion = "v0.0.0-e2e"

// managerBinary builds the manager and the siteops CLI once per test run (managerproc.Build) and returns the
// manager's path; the CLI is beside it.
func managerBinary(t testing.TB) string {
	t.Helper()
	buildManagerOnce.Do(func() {
		buildManagerOnce.path, buildManagerOnce.err = buildBinaries()
	})
	if buildManagerOnce.err != nil {
		t.Fatal(buildManagerOnce.err)
	}
	return buildManagerOnce.path
}

// buildBinaries builds cmd/manager and cmd/siteops into a temporary folder and returns the manager's path.
func buildBinaries() (string, error) {
	dir, err := os.MkdirTemp("", "siteops-e2e-bin-")
	if err != nil {
		return "", err
	}
	for _, name := range []string{"manager", "siteops"} {
		if err := managerproc.Build(name, filepath.Join(dir, name), e2eVersion); err != nil {
			return "", err
		}
	}
	return filepath.Join(dir, "manager"), nil
}

// manager is a siteops manager process running on the host against the local cluster.
type manager struct {
	*managerproc.Process
	// receiverPort serves the push receiver.
	receiverPort int
}

// freePort asks the kernel for an unused loopback port.
func freePort(t testing.TB) int { return managerproc.LoopbackPort(t) }

// startManager runs the manager with leader election in namespace siteops-system, webhooks off, every
// listener on a free loopback port, plus extra flags (a repeated flag overrides: the last one wins). It is
// stopped (SIGTERM) on test cleanup, and its log is printed when the test failed.
func startManager(t testing.TB, name string, extra ...string) *manager {
	t.Helper()
	bin := managerBinary(t)
	_, _ = tryKubectl("create", "namespace", "siteops-system")
	receiver := freePort(t)
	args := append([]string{
		"--kubeconfig=" + cluster.kubeconfig,
		"--leader-election-namespace=siteops-system",
		"--enable-webhooks=false",
		fmt.Sprintf("--metrics-bind-address=127.0.0.1:%d", freePort(t)),
		fmt.Sprintf("--receiver-bind-address=127.0.0.1:%d", receiver),
	}, extra...)
	return &manager{Process: managerproc.Start(t, name, bin, args...), receiverPort: receiver}
}
