package main

import (
	"context"
	"net/http"
	"strconv"
	"testing"

	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/siteops/siteops/apis/batch/v1/cronjobtest"
	"github.com/siteops/siteops/test/testenv"
)

// TestSelfManagedWebhookCertificate runs the manager's wiring with --cert-source=self against a real
// kube-apiserver whose webhook configurations point at it on 127.0.0.1: before serving, it creates its
// certificate Secret and injects the CA; the apiserver then calls its CronJob webhooks over TLS (a valid
// CronJob passes, one only the webhook judges is rejected), and /readyz answers although no --webhook-cert-dir
// was given.
func TestSelfManagedWebhookCertificate(t *testing.T) {
	g := NewWithT(t)
	ctx := context.Background()
	env, err := testenv.Start(testenv.Options{Webhooks: true})
	g.Expect(err).NotTo(HaveOccurred())
	t.Cleanup(func() { _ = env.Stop() })
	k8s, err := client.New(env.Config, client.Options{Scheme: env.Scheme})
	g.Expect(err).NotTo(HaveOccurred())
	const ns = "certs-test"
	for _, n := range []string{systemNS, ns} {
		g.Expect(k8s.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: n}})).To(Succeed())
	}
	probePort := freePort(t)
	startManager(t, env, []string{
		"--cert-source=self", "--cert-namespace=" + systemNS, "--cert-hosts=127.0.0.1",
		"--mutating-webhook-configuration=mutating-webhook-configuration",
		"--validating-webhook-configuration=validating-webhook-configuration",
		"--webhook-port=" + strconv.Itoa(env.WebhookInstallOptions.LocalServingPort),
		"--metrics-bind-address=0", "--health-probe-bind-address=" + addrOf(probePort),
		"--receiver-bind-address=0", "--shadow-bind-address=0",
		"--leader-election-namespace=" + systemNS, "--work-dir=" + t.TempDir(),
	})

	g.Eventually(func() error {
		return k8s.Get(ctx, types.NamespacedName{Namespace: systemNS, Name: "siteops-webhook-server-cert"}, &corev1.Secret{})
	}, eventually).Should(Succeed())
	g.Eventually(func() error { return k8s.Create(ctx, cronjobtest.Valid(ns, "ok")) }, eventually).Should(Succeed())
	for _, c := range cronjobtest.InvalidCronJobs() {
		if c.CEL {
			continue
		}
		bad := cronjobtest.Valid(ns, "bad")
		c.Mutate(bad)
		err := k8s.Create(ctx, bad)
		g.Expect(apierrors.IsInvalid(err)).To(BeTrue(), "%s: want the webhook's rejection, got %v", c.Name, err)
		g.Expect(err.Error()).To(ContainSubstring(c.Field))
		break
	}
	g.Eventually(func() int {
		resp, err := http.Get("http://" + addrOf(probePort) + "/readyz")
		if err != nil {
			return 0
		}
		_ = resp.Body.Close()
		return resp.StatusCode
	}, eventually).Should(Equal(http.StatusOK))
}
