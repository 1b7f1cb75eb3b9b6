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
	"bufio"
	"bytes"
	"context"
	"io"
	"net/http"
	"path/filepath"
	"strings"
	"testing"

	. "github.com/onsi/gomega"

	"github.com/siteops/siteops/apis/gitops/v1alpha1/sitesynctest"
)

// TestDashboardServesTheSiteSyncsUntilCtrlC: `siteops dashboard --addr 127.0.0.1:0 -n hub` prints its URL,
// serves the Fleet view with the namespace's SiteSyncs read with the kubeconfig, and exits 0 at Ctrl-C.
func TestDashboardServesTheSiteSyncsUntilCtrlC(t *testing.T) {
	g := NewWithT(t)
	k8s, kubeconfig := startCluster(t)
	g.Expect(k8s.Create(t.Context(), sitesynctest.Valid("hub"))).To(Succeed())
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	outR, outW := io.Pipe()
	var stderr bytes.Buffer
	exit := make(chan int, 1)
	go func() {
		exit <- run(ctx, []string{"dashboard", "--addr", "127.0.0.1:0", "--kubeconfig", kubeconfig, "-n", "hub"},
			outW, &stderr)
		_ = outW.Close()
	}()
	line, err := bufio.NewReader(outR).ReadString('\n')
	g.Expect(err).NotTo(HaveOccurred(), "stderr: %s", &stderr)
	g.Expect(line).To(HavePrefix("siteops dashboard: http://127.0.0.1:"))
	url := strings.Fields(line)[2]
	go func() { _, _ = io.Copy(io.Discard, outR) }()

	resp, err := http.Get(url)
	g.Expect(err).NotTo(HaveOccurred())
	body, err := io.ReadAll(resp.Body)
	_ = resp.Body.Close()
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(resp.StatusCode).To(Equal(http.StatusOK))
	g.Expect(string(body)).To(ContainSubstring(`href="/sitesyncs/hub/valid"`))

	cancel()
	g.Expect(<-exit).To(Equal(exitOK), "stderr: %s", &stderr)
}

// TestDashboardListensOnLoopbackOnly: an --addr that is not a loopback address is a usage error.
func TestDashboardListensOnLoopbackOnly(t *testing.T) {
	g := NewWithT(t)
	missing := filepath.Join(t.TempDir(), "no-kubeconfig") // the address is checked first
	for _, addr := range []string{"0.0.0.0:8088", ":8088", "192.0.2.1:8088"} {
		var stdout, stderr bytes.Buffer
		code := run(t.Context(), []string{"dashboard", "--addr", addr, "--kubeconfig", missing}, &stdout, &stderr)
		g.Expect(code).To(Equal(exitUsage), "%s: %s", addr, &stderr)
		g.Expect(stderr.String()).To(ContainSubstring("loopback address only"))
	}
}
