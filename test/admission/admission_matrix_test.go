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

// Package admission counts siteops' whole admission matrix (issue 8, R1) against one real kube-apiserver:
// every invalid CronJob, Guestbook and SiteSync is sent with the CronJob webhooks on, then again with them
// removed, and the test prints how many were rejected, naming their field path, and how many got through.
package admission

import (
	"context"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/go-logr/logr"
	admissionv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"
	"sigs.k8s.io/controller-runtime/pkg/webhook"

	batchv1 "github.com/siteops/siteops/apis/batch/v1"
	"github.com/siteops/siteops/apis/batch/v1/cronjobtest"
	"github.com/siteops/siteops/apis/gitops/v1alpha1/sitesynctest"
	"github.com/siteops/siteops/apis/webapp/v1/guestbooktest"
	"github.com/siteops/siteops/test/testenv"
)

var k8s client.Client

func TestMain(m *testing.M) { os.Exit(run(m)) }

// run starts the control plane with base/webhook's configuration and a manager serving the CronJob webhooks.
func run(m *testing.M) int {
	ctrl.SetLogger(logr.Discard())
	env, err := testenv.Start(testenv.Options{Webhooks: true})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer func() { _ = env.Stop() }()
	wh := env.WebhookInstallOptions
	mgr, err := ctrl.NewManager(env.Config, ctrl.Options{
		Scheme: env.Scheme, Metrics: metricsserver.Options{BindAddress: "0"}, HealthProbeBindAddress: "0",
		WebhookServer: webhook.NewServer(webhook.Options{
			Host: wh.LocalServingHost, Port: wh.LocalServingPort, CertDir: wh.LocalServingCertDir,
		}),
	})
	if err == nil {
		err = batchv1.SetupCronJobWebhookWithManager(mgr)
	}
	if err == nil {
		k8s, err = client.New(env.Config, client.Options{Scheme: env.Scheme})
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() { _ = mgr.Start(ctx) }()
	return m.Run()
}

// row is one invalid object of the matrix, ready to send.
type row struct {
	kind, name, field string
	// cel: the CRD's schema and CEL rules reject it without any webhook.
	cel    bool
	object func(ns string) client.Object
}

// matrix is every invalid object of the three APIs.
func matrix() []row {
	var rows []row
	for i, tc := range cronjobtest.InvalidCronJobs() {
		rows = append(rows, row{"CronJob", tc.Name, tc.Field, tc.CEL, func(ns string) client.Object {
			cj := cronjobtest.Valid(ns, fmt.Sprintf("bad-%d", i))
			tc.Mutate(cj)
			return cj
		}})
	}
	for i, tc := range guestbooktest.InvalidGuestbooks("") {
		rows = append(rows, row{"Guestbook", tc.Name, tc.Field, true, func(ns string) client.Object {
			return guestbooktest.InvalidGuestbooks(ns)[i].Object
		}})
	}
	for _, tc := range sitesynctest.InvalidSiteSyncs() {
		rows = append(rows, row{"SiteSync", tc.Name, tc.Field, true, func(ns string) client.Object {
			ss := sitesynctest.Valid(ns)
			tc.Mutate(ss)
			return ss
		}})
	}
	return rows
}

// tally counts the outcome of sending every row once.
type tally struct{ sent, rejectedWithField, accepted int }

// send creates every row (server-side dry run: admission runs in full, nothing is stored) and checks each
// rejection is Invalid and names the row's field path. Rows with mustReject false may be accepted.
func send(t *testing.T, ns string, rows []row, mustReject func(row) bool) tally {
	var n tally
	for _, r := range rows {
		n.sent++
		err := k8s.Create(t.Context(), r.object(ns), client.DryRunAll)
		switch {
		case err == nil:
			n.accepted++
			if mustReject(r) {
				t.Errorf("%s %q was accepted", r.kind, r.name)
			}
		case !apierrors.IsInvalid(err) || !strings.Contains(err.Error(), r.field):
			t.Errorf("%s %q: want Invalid naming %s, got %v", r.kind, r.name, r.field, err)
		default:
			n.rejectedWithField++
		}
	}
	return n
}

// TestAdmissionMatrixRejectsEveryInvalidObject is R1: with the webhooks on, every row is rejected naming its
// field path and none is accepted; with them off, every row the CRDs' schema and CEL rules can judge is still
// rejected, and only the webhook-only CronJob rows get through (the controller then stalls on them).
func TestAdmissionMatrixRejectsEveryInvalidObject(t *testing.T) {
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "admission-matrix"}}
	if err := k8s.Create(t.Context(), ns); err != nil {
		t.Fatal(err)
	}
	rows := matrix()
	perKind := map[string]int{}
	webhookOnly := 0
	for _, r := range rows {
		perKind[r.kind]++
		if !r.cel {
			webhookOnly++
		}
	}
	if len(rows) < 40 {
		t.Fatalf("the matrix has %d rows, want at least 40", len(rows))
	}
	waitForWebhook(t, ns.Name, true)
	on := send(t, ns.Name, rows, func(row) bool { return true })

	for _, obj := range []client.Object{
		&admissionv1.ValidatingWebhookConfiguration{ObjectMeta: metav1.ObjectMeta{Name: "validating-webhook-configuration"}},
		&admissionv1.MutatingWebhookConfiguration{ObjectMeta: metav1.ObjectMeta{Name: "mutating-webhook-configuration"}},
	} {
		if err := k8s.Delete(t.Context(), obj); err != nil {
			t.Fatalf("removing the webhooks: %v", err)
		}
	}
	waitForWebhook(t, ns.Name, false)
	off := send(t, ns.Name, rows, func(r row) bool { return r.cel })

	t.Logf(
		"admission matrix: %d invalid objects (CronJob %d, Guestbook %d, SiteSync %d; %d CronJob rows only the webhook can "+
			"judge)",
		len(rows), perKind["CronJob"], perKind["Guestbook"], perKind["SiteSync"], webhookOnly)
	t.Logf("webhooks on:  %d sent, %d rejected naming the field path, %d accepted", on.sent, on.rejectedWithField,
		on.accepted)
	t.Logf("webhooks off: %d sent, %d rejected naming the field path, %d accepted (webhook-only rows)", off.sent,
		off.rejectedWithField, off.accepted)
	if on.accepted != 0 || on.rejectedWithField != len(rows) {
		t.Errorf("webhooks on: want all %d rejected with the field path, got %+v", len(rows), on)
	}
	if off.accepted != webhookOnly || off.rejectedWithField != len(rows)-webhookOnly {
		t.Errorf("webhooks off: want %d rejected and only the %d webhook-only rows accepted, got %+v",
			len(rows)-webhookOnly, webhookOnly, off)
	}
}

// waitForWebhook waits until the apiserver calls the CronJob webhook (want true: an invalid schedule only the
// webhook judges is rejected) or no longer does (want false: it is accepted), since the apiserver picks up
// webhook configuration changes asynchronously.
func waitForWebhook(t *testing.T, ns string, want bool) {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for {
		cj := cronjobtest.Valid(ns, "probe")
		cj.Spec.Schedule = "61 * * * *"
		err := k8s.Create(t.Context(), cj, client.DryRunAll)
		if rejected := apierrors.IsInvalid(err); rejected == want {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("webhook on=%v not observed within 60s; last answer: %v", want, err)
		}
		time.Sleep(200 * time.Millisecond)
	}
}
