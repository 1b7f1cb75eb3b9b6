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
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/siteops/siteops/internal/leadership"
	"github.com/siteops/siteops/internal/standby"
	"github.com/siteops/siteops/test/testenv"
)

// TestStandbyReportNeedsAnAuthorizedToken serves the standby report as the manager does (secure, the
// default) against a real kube-apiserver: over HTTPS, no token gets 401, a ServiceAccount without the shipped
// standby-reader ClusterRole 403, and one with it the report, whose mode follows the manager's leadership.
// (The manager's wiring cannot run twice in one test process: controller names are unique per process.)
func TestStandbyReportNeedsAnAuthorizedToken(t *testing.T) {
	g := NewWithT(t)
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	env, err := testenv.Start(testenv.Options{})
	g.Expect(err).NotTo(HaveOccurred())
	t.Cleanup(func() { _ = env.Stop() })
	k8s, err := client.New(env.Config, client.Options{Scheme: env.Scheme})
	g.Expect(err).NotTo(HaveOccurred())
	cs, err := kubernetes.NewForConfig(env.Config)
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(k8s.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: testNS}})).To(Succeed())
	httpClient, err := rest.HTTPClientFor(env.Config)
	g.Expect(err).NotTo(HaveOccurred())

	fence := &leadership.Fence{}
	port := freePort(t)
	srv := &standbyServer{addr: addrOf(port), leadership: fence, secure: true, config: env.Config, httpClient: httpClient,
		clients: writeClients{leaderReport: &standby.Report{}, standbyReport: &standby.Report{}}}
	done := make(chan error, 1)
	go func() { done <- srv.Start(ctx) }()
	t.Cleanup(func() { cancel(); g.Expect(<-done).To(Succeed()) })

	applyShippedClusterRole(t, k8s, "standby_reader_role.yaml")
	reader := serviceAccountToken(t, cs, k8s, testNS, "analysis", "standby-reader")
	stranger := serviceAccountToken(t, cs, k8s, testNS, "stranger", "")
	s := newScraper(addrOf(port))
	s.url = strings.TrimSuffix(s.url, "/metrics") + "/standby"
	mode := func(g Gomega) string {
		resp, body, err := s.get(reader)
		g.Expect(err).NotTo(HaveOccurred())
		g.Expect(resp.StatusCode).To(Equal(http.StatusOK), "%s", body)
		var sum standby.Summary
		g.Expect(json.Unmarshal(body, &sum)).To(Succeed())
		return sum.Mode
	}
	g.Eventually(mode, eventually).Should(Equal("standby"))
	// The deprecated path answers the same report to the same token.
	standbyURL := s.url
	s.url = strings.TrimSuffix(standbyURL, "/standby") + "/shadow"
	g.Expect(mode(g)).To(Equal("standby"))
	s.url = standbyURL

	resp, _, err := s.get("")
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(resp.StatusCode).To(Equal(http.StatusUnauthorized), "no token")
	resp, _, err = s.get(stranger)
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(resp.StatusCode).To(Equal(http.StatusForbidden), "a ServiceAccount without standby-reader")

	fence.Grant()
	g.Expect(mode(g)).To(Equal("leader"))
}
