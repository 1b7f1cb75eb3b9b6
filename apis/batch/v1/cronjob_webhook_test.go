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

package v1_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/go-logr/logr"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"
	"sigs.k8s.io/controller-runtime/pkg/webhook"
	"sigs.k8s.io/yaml"

	batchv1 "github.com/siteops/siteops/apis/batch/v1"
	"github.com/siteops/siteops/apis/batch/v1/cronjobtest"
	"github.com/siteops/siteops/test/testenv"
)

// These tests run with the admission webhooks on: a real kube-apiserver calls the CronJob webhooks served by
// a manager in this process (SetupCronJobWebhookWithManager), as in a cluster.

var k8s client.Client

func TestMain(m *testing.M) {
	os.Exit(run(m))
}

func run(m *testing.M) int {
	// The tests assert on state and events; controller-runtime's logs would only add noise.
	ctrl.SetLogger(logr.Discard())
	env, err := testenv.Start(testenv.Options{Webhooks: true})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer func() { _ = env.Stop() }()
	wh := env.WebhookInstallOptions
	mgr, err := ctrl.NewManager(env.Config, ctrl.Options{
		Scheme:                 env.Scheme,
		Metrics:                metricsserver.Options{BindAddress: "0"},
		HealthProbeBindAddress: "0",
		WebhookServer: webhook.NewServer(webhook.Options{
			Host: wh.LocalServingHost, Port: wh.LocalServingPort, CertDir: wh.LocalServingCertDir,
		}),
	})
	if err == nil {
		err = batchv1.SetupCronJobWebhookWithManager(mgr)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() { _ = mgr.Start(ctx) }()
	if k8s, err = client.New(env.Config, client.Options{Scheme: env.Scheme}); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	// The apiserver reaches the webhook once the server listens; a dry-run create proves the round trip.
	deadline := time.Now().Add(30 * time.Second)
	for {
		probe := cronjobtest.Valid("default", "probe")
		err := k8s.Create(ctx, probe, client.DryRunAll)
		if err == nil {
			break
		}
		if time.Now().After(deadline) {
			fmt.Fprintln(os.Stderr, "webhook not reachable:", err)
			return 1
		}
		time.Sleep(100 * time.Millisecond)
	}
	return m.Run()
}

func namespace(t *testing.T) string {
	t.Helper()
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{GenerateName: "webhook-"}}
	NewWithT(t).Expect(k8s.Create(context.Background(), ns)).To(Succeed())
	return ns.Name
}

// TestWebhookRejectsMatrix: with the webhook on, every row of the admission matrix is rejected as Invalid
// with its field path in the message, including the rows CEL cannot judge.
func TestWebhookRejectsMatrix(t *testing.T) {
	ns := namespace(t)
	cases := cronjobtest.InvalidCronJobs()
	NewWithT(t).Expect(len(cases)).To(BeNumerically(">=", 15))
	for i, tc := range cases {
		t.Run(tc.Name, func(t *testing.T) {
			g := NewWithT(t)
			cj := cronjobtest.Valid(ns, fmt.Sprintf("bad-%d", i))
			tc.Mutate(cj)
			err := k8s.Create(context.Background(), cj)
			t.Log(err)
			g.Expect(apierrors.IsInvalid(err)).To(BeTrue(), "want Invalid, got %v", err)
			g.Expect(err.Error()).To(ContainSubstring(tc.Field))
		})
	}
}

// TestWebhookRejectsInvalidUpdate: an update to a bad schedule is rejected too, and the stored object keeps
// the good one.
func TestWebhookRejectsInvalidUpdate(t *testing.T) {
	g := NewWithT(t)
	ctx := context.Background()
	cj := cronjobtest.Valid(namespace(t), "update")
	g.Expect(k8s.Create(ctx, cj)).To(Succeed())
	cj.Spec.Schedule = "61 * * * *"
	err := k8s.Update(ctx, cj)
	g.Expect(apierrors.IsInvalid(err)).To(BeTrue(), "want Invalid, got %v", err)
	g.Expect(err.Error()).To(ContainSubstring("spec.schedule"))
	stored := &batchv1.CronJob{}
	g.Expect(k8s.Get(ctx, client.ObjectKeyFromObject(cj), stored)).To(Succeed())
	g.Expect(stored.Spec.Schedule).To(Equal("*/1 * * * *"))
}

// TestWebhookAcceptsTutorialSample: base/samples/batch_v1_cronjob.yaml, the kubebuilder book's sample, is
// accepted and defaulted.
func TestWebhookAcceptsTutorialSample(t *testing.T) {
	g := NewWithT(t)
	raw, err := os.ReadFile(filepath.Join(testenv.RepoRoot(), "base", "samples", "batch_v1_cronjob.yaml"))
	g.Expect(err).NotTo(HaveOccurred())
	cj := &batchv1.CronJob{}
	g.Expect(yaml.UnmarshalStrict(raw, cj)).To(Succeed())
	cj.Namespace = namespace(t)
	g.Expect(k8s.Create(context.Background(), cj)).To(Succeed())
	g.Expect(cj.Spec.Schedule).To(Equal("*/1 * * * *"))
	g.Expect(cj.Spec.StartingDeadlineSeconds).To(Equal(ptr.To[int64](60)))
	g.Expect(cj.Spec.Suspend).To(Equal(ptr.To(false)))
	g.Expect(cj.Spec.SuccessfulJobsHistoryLimit).To(Equal(ptr.To[int32](3)))
	g.Expect(cj.Spec.FailedJobsHistoryLimit).To(Equal(ptr.To[int32](1)))
	g.Expect(cj.Spec.JobTemplate.Spec.Template.Spec.RestartPolicy).To(Equal(corev1.RestartPolicyOnFailure))
}
