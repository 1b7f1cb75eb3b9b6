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

package standby_test

import (
	"context"
	"crypto/tls"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"strconv"
	"testing"
	"time"

	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/siteops/siteops/internal/leadership"
	"github.com/siteops/siteops/internal/standby"
	"github.com/siteops/siteops/test/managerproc"
	"github.com/siteops/siteops/test/testenv"
)

// TestReportServerNeedsAnAuthorizedToken serves the standby report as the manager does (secure, the default)
// against a real kube-apiserver: over HTTPS, no token gets 401, a ServiceAccount without the shipped
// standby-reader ClusterRole 403, and one with it the report, whose mode follows the manager's leadership;
// the deprecated path GET /shadow answers the same report.
func TestReportServerNeedsAnAuthorizedToken(t *testing.T) {
	g := NewWithT(t)
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	k8s, err := client.New(env.Config, client.Options{Scheme: env.Scheme})
	g.Expect(err).NotTo(HaveOccurred())
	cs, err := kubernetes.NewForConfig(env.Config)
	g.Expect(err).NotTo(HaveOccurred())
	const ns = "report-auth"
	g.Expect(k8s.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}})).To(Succeed())
	httpClient, err := rest.HTTPClientFor(env.Config)
	g.Expect(err).NotTo(HaveOccurred())

	fence := &leadership.Fence{}
	addr := net.JoinHostPort("127.0.0.1", strconv.Itoa(managerproc.LoopbackPort(t)))
	srv := &standby.ReportServer{Addr: addr, Leadership: fence, Secure: true, Config: env.Config,
		HTTPClient: httpClient, Leader: &standby.Report{}, Standby: &standby.Report{}}
	done := make(chan error, 1)
	go func() { done <- srv.Start(ctx) }()
	t.Cleanup(func() { cancel(); g.Expect(<-done).To(Succeed()) })

	testenv.ApplyShippedClusterRole(t, k8s, "standby_reader_role.yaml")
	reader := testenv.ServiceAccountToken(t, cs, k8s, ns, "analysis", "standby-reader")
	stranger := testenv.ServiceAccountToken(t, cs, k8s, ns, "stranger", "")
	mode := func(path string) func(g Gomega) string {
		return func(g Gomega) string {
			resp, body, err := get("https://"+addr+path, reader)
			g.Expect(err).NotTo(HaveOccurred())
			g.Expect(resp.StatusCode).To(Equal(http.StatusOK), "%s", body)
			var sum standby.Summary
			g.Expect(json.Unmarshal(body, &sum)).To(Succeed())
			return sum.Mode
		}
	}
	g.Eventually(mode("/standby"), 30*time.Second).Should(Equal("standby"))
	g.Expect(mode("/shadow")(g)).To(Equal("standby"))

	resp, _, err := get("https://"+addr+"/standby", "")
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(resp.StatusCode).To(Equal(http.StatusUnauthorized), "no token")
	resp, _, err = get("https://"+addr+"/standby", stranger)
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(resp.StatusCode).To(Equal(http.StatusForbidden), "a ServiceAccount without standby-reader")

	fence.Grant()
	g.Expect(mode("/standby")(g)).To(Equal("leader"))
}

// get sends GET url with token ("" sends none) and returns the response and its body. The server's
// certificate is self-signed, so it is not verified.
func get(url, token string) (*http.Response, []byte, error) {
	req, err := http.NewRequest(http.MethodGet, url, nil)
	if err != nil {
		return nil, nil, err
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	tr := &http.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: true}} //nolint:gosec // self-signed
	resp, err := (&http.Client{Transport: tr, Timeout: 30 * time.Second}).Do(req)
	if err != nil {
		return nil, nil, err
	}
	defer func() { _ = resp.Body.Close() }()
	body, err := io.ReadAll(resp.Body)
	return resp, body, err
}
