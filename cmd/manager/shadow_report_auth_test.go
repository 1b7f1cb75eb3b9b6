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
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/siteops/siteops/cmd/manager/leadership"
	"github.com/siteops/siteops/cmd/manager/standby"
	"github.com/siteops/siteops/test/testenv"
)

// TestShadowReportNeedsAnAuthorizedTokenAndFollowsTheActiveService runs the manager's own wiring as the preview
// colour of a blue/green pair against a real kube-apiserver. Its shadow report is served over HTTPS: no token
// gets 401, a ServiceAccount without the shipped shadow-reader ClusterRole 403, and one with it the report, in
// shadow mode. When the active Service's selector moves to this manager's pod-template hash (promote), the
// manager takes the Lease and the report says it leads.
func TestShadowReportNeedsAnAuthorizedTokenAndFollowsTheActiveService(t *testing.T) {
	g := NewWithT(t)
	ctx := context.Background()
	env, err := testenv.Start(testenv.Options{})
	g.Expect(err).NotTo(HaveOccurred())
	t.Cleanup(func() { _ = env.Stop() })
	k8s, err := client.New(env.Config, client.Options{Scheme: env.Scheme})
	g.Expect(err).NotTo(HaveOccurred())
	cs, err := kubernetes.NewForConfig(env.Config)
	g.Expect(err).NotTo(HaveOccurred())
	for _, ns := range []string{systemNS, testNS} {
		g.Expect(k8s.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}})).To(Succeed())
	}
	svc := &corev1.Service{ObjectMeta: metav1.ObjectMeta{Namespace: systemNS, Name: "webhook-service"},
		Spec: corev1.ServiceSpec{Selector: map[string]string{leadership.PodTemplateHashLabel: "blue"},
			Ports: []corev1.ServicePort{{Port: 443}}}}
	g.Expect(k8s.Create(ctx, svc)).To(Succeed())

	shadowPort := freePort(t)
	startManager(t, env, []string{
		"--metrics-bind-address=0", "--health-probe-bind-address=0", "--receiver-bind-address=0", "--enable-webhooks=false",
		"--shadow-bind-address=" + addrOf(shadowPort),
		"--leader-election-namespace=" + systemNS, "--active-service=webhook-service", "--pod-template-hash=green",
		"--work-dir=" + t.TempDir(),
	})
	applyShippedClusterRole(t, k8s, "shadow_reader_role.yaml")
	reader := serviceAccountToken(t, cs, k8s, testNS, "analysis", "shadow-reader")
	stranger := serviceAccountToken(t, cs, k8s, testNS, "stranger", "")
	s := newScraper(addrOf(shadowPort))
	s.url = strings.TrimSuffix(s.url, "/metrics") + "/shadow"
	mode := func(g Gomega) string {
		resp, body, err := s.get(reader)
		g.Expect(err).NotTo(HaveOccurred())
		g.Expect(resp.StatusCode).To(Equal(http.StatusOK), "%s", body)
		var sum standby.Summary
		g.Expect(json.Unmarshal(body, &sum)).To(Succeed())
		return sum.Mode
	}
	g.Eventually(mode, eventually).Should(Equal("shadow"))

	resp, _, err := s.get("")
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(resp.StatusCode).To(Equal(http.StatusUnauthorized), "no token")
	resp, _, err = s.get(stranger)
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(resp.StatusCode).To(Equal(http.StatusForbidden), "a ServiceAccount without shadow-reader")

	patch := client.MergeFrom(svc.DeepCopy())
	svc.Spec.Selector[leadership.PodTemplateHashLabel] = "green"
	g.Expect(k8s.Patch(ctx, svc, patch)).To(Succeed())
	g.Eventually(mode, eventually).Should(Equal("leader"))
}
