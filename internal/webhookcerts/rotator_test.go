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

package webhookcerts

import (
	"context"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/go-logr/logr"
	. "github.com/onsi/gomega"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	clocktesting "k8s.io/utils/clock/testing"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"
	"sigs.k8s.io/controller-runtime/pkg/webhook"

	batchv1 "github.com/siteops/siteops/apis/batch/v1"
	"github.com/siteops/siteops/apis/batch/v1/cronjobtest"
	"github.com/siteops/siteops/test/testenv"
)

// The envtest control plane installs base/webhook's configurations (names as generated) pointing at a local
// webhook server on 127.0.0.1, with envtest's own CA, which the Rotator replaces.
var (
	env        *testenv.Env
	k8s        client.Client
	mutating   = "mutating-webhook-configuration"
	validating = "validating-webhook-configuration"
)

func TestMain(m *testing.M) {
	os.Exit(func() int {
		ctrl.SetLogger(logr.Discard())
		var err error
		if env, err = testenv.Start(testenv.Options{Webhooks: true}); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		defer func() { _ = env.Stop() }()
		if k8s, err = client.New(env.Config, client.Options{Scheme: env.Scheme}); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		return m.Run()
	}())
}

func rotator(t *testing.T, ns string) *Rotator {
	return &Rotator{Client: k8s, Secret: types.NamespacedName{Namespace: ns, Name: "webhook-server-cert"},
		Hosts: []string{"127.0.0.1", "siteops-webhook-service." + ns + ".svc"}, CertDir: t.TempDir(),
		MutatingWebhooks: []string{mutating}, ValidatingWebhooks: []string{validating}}
}

// TestRotatorCreatesTheSecretInjectsTheCAAndTheAPIServerCallsTheWebhook: the Rotator creates the Secret, the
// CA lands in both webhook configurations, and a real kube-apiserver calls the CronJob webhooks of a manager
// serving the Rotator's certificate: an invalid CronJob that only the webhook can judge is rejected. A second
// manager's Rotator (the other colour) uses the same Secret and issues nothing.
func TestRotatorCreatesTheSecretInjectsTheCAAndTheAPIServerCallsTheWebhook(t *testing.T) {
	g := NewWithT(t)
	ctx := context.Background()
	ns := namespace(t)
	blue := rotator(t, ns)
	g.Expect(blue.Ensure(ctx)).To(Succeed())

	sec := &corev1.Secret{}
	g.Expect(k8s.Get(ctx, blue.Secret, sec)).To(Succeed())
	for _, k := range []string{KeyCACert, KeyCert, KeyKey} {
		g.Expect(sec.Data).To(HaveKeyWithValue(k, Not(BeEmpty())))
	}
	ca := sec.Data[KeyCACert]
	mwc := &admissionregistrationv1.MutatingWebhookConfiguration{}
	g.Expect(k8s.Get(ctx, types.NamespacedName{Name: mutating}, mwc)).To(Succeed())
	vwc := &admissionregistrationv1.ValidatingWebhookConfiguration{}
	g.Expect(k8s.Get(ctx, types.NamespacedName{Name: validating}, vwc)).To(Succeed())
	g.Expect(mwc.Webhooks).NotTo(BeEmpty())
	g.Expect(vwc.Webhooks).NotTo(BeEmpty())
	for _, w := range mwc.Webhooks {
		g.Expect(w.ClientConfig.CABundle).To(Equal(ca), "mutating %s", w.Name)
	}
	for _, w := range vwc.Webhooks {
		g.Expect(w.ClientConfig.CABundle).To(Equal(ca), "validating %s", w.Name)
	}

	green := rotator(t, ns)
	g.Expect(green.Ensure(ctx)).To(Succeed())
	again := &corev1.Secret{}
	g.Expect(k8s.Get(ctx, blue.Secret, again)).To(Succeed())
	g.Expect(again.ResourceVersion).To(Equal(sec.ResourceVersion), "the second colour re-issued the certificate")
	for _, f := range []string{KeyCert, KeyKey} {
		b, _ := os.ReadFile(blue.CertDir + "/" + f)
		gr, _ := os.ReadFile(green.CertDir + "/" + f)
		g.Expect(gr).To(Equal(b), "both colours serve the same %s", f)
	}

	// A manager serving the CronJob webhooks with green's files; the apiserver must trust it through the CA.
	wh := env.WebhookInstallOptions
	mgr, err := ctrl.NewManager(env.Config, ctrl.Options{Scheme: env.Scheme,
		Metrics: metricsserver.Options{BindAddress: "0"}, HealthProbeBindAddress: "0",
		WebhookServer: webhook.NewServer(webhook.Options{Host: wh.LocalServingHost, Port: wh.LocalServingPort,
			CertDir: green.CertDir})})
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(batchv1.SetupCronJobWebhookWithManager(mgr)).To(Succeed())
	mctx, cancel := context.WithCancel(ctx)
	t.Cleanup(cancel)
	go func() { _ = mgr.Start(mctx) }()
	g.Eventually(func() error { return k8s.Create(ctx, cronjobtest.Valid(ns, "probe"), client.DryRunAll) }).
		WithTimeout(time.Minute).Should(Succeed(), "the apiserver reaches the webhook over TLS")

	var webhookOnly *cronjobtest.Invalid
	for _, c := range cronjobtest.InvalidCronJobs() {
		if !c.CEL {
			webhookOnly = &c
			break
		}
	}
	g.Expect(webhookOnly).NotTo(BeNil())
	bad := cronjobtest.Valid(ns, "bad")
	webhookOnly.Mutate(bad)
	err = k8s.Create(ctx, bad)
	g.Expect(apierrors.IsInvalid(err)).To(BeTrue(), "want the webhook's Invalid rejection (%s), got %v", webhookOnly.Name,
		err)
	g.Expect(err.Error()).To(ContainSubstring(webhookOnly.Field))
	g.Expect(strings.Contains(err.Error(), "x509")).To(BeFalse(), "TLS failed: %v", err)
}

// TestRotatorRenewsTheServingCertificateBeforeItExpires: near the end of the serving certificate's life the
// Rotator issues a new one from the same CA, so the caBundle in the webhook configurations stays valid.
func TestRotatorRenewsTheServingCertificateBeforeItExpires(t *testing.T) {
	g := NewWithT(t)
	ctx := context.Background()
	ns := namespace(t)
	clk := clocktesting.NewFakePassiveClock(time.Now())
	r := rotator(t, ns)
	r.Clock = clk
	g.Expect(r.Ensure(ctx)).To(Succeed())
	first := &corev1.Secret{}
	g.Expect(k8s.Get(ctx, r.Secret, first)).To(Succeed())

	clk.SetTime(clk.Now().Add(servingLifetime - renewBefore + time.Hour))
	g.Expect(r.Ensure(ctx)).To(Succeed())
	renewed := &corev1.Secret{}
	g.Expect(k8s.Get(ctx, r.Secret, renewed)).To(Succeed())
	g.Expect(renewed.Data[KeyCert]).NotTo(Equal(first.Data[KeyCert]), "serving certificate renewed")
	g.Expect(renewed.Data[KeyCACert]).To(Equal(first.Data[KeyCACert]), "same CA")
	g.Expect(fresh(bundleOf(renewed.Data), r.Hosts, clk.Now())).To(BeTrue())
	served, err := os.ReadFile(r.CertDir + "/" + KeyCert)
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(served).To(Equal(renewed.Data[KeyCert]))
}

func namespace(t *testing.T) string {
	t.Helper()
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{GenerateName: "certs-"}}
	NewWithT(t).Expect(k8s.Create(context.Background(), ns)).To(Succeed())
	return ns.Name
}
