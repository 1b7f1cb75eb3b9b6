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
	"path/filepath"
	"strconv"
	"syscall"
	"testing"
	"time"

	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/kubernetes"
	"sigs.k8s.io/controller-runtime/pkg/client"

	gitopsv1alpha1 "github.com/siteops/siteops/apis/gitops/v1alpha1"
	"github.com/siteops/siteops/test/gitserver"
	"github.com/siteops/siteops/test/testenv"
)

const ledgerNS = "ledger-test"

// ledgerSeries are the ledger's series of the SiteSync ledger-test/sites, by name.
var ledgerSeries = []string{"siteops_ledger_deployments", "siteops_ledger_deployments_per_day",
	"siteops_ledger_failed_changes", "siteops_ledger_change_failure_ratio", "siteops_ledger_lead_time_seconds",
	"siteops_ledger_time_to_restore_seconds"}

// TestLedgerMetricsSurviveARestart runs manager processes against a real kube-apiserver and Git server: a
// SiteSync publishes two revisions, each delivered once the sites' Argo CD Applications report them Synced
// and Healthy. The ledger's series on the secure metrics endpoint show two deployments, no failure and two
// lead times summing to what status.history records. A second manager, started after the first stopped and
// with an empty clone cache, reports the same values: the ledger is rebuilt from Git and status.
func TestLedgerMetricsSurviveARestart(t *testing.T) {
	g := NewWithT(t)
	ctx := context.Background()
	env, err := testenv.Start(testenv.Options{CRDPaths: []string{filepath.Join(testenv.RepoRoot(), "controllers",
		"sitesync", "testdata", "argocd-application-crd.yaml")}})
	g.Expect(err).NotTo(HaveOccurred())
	t.Cleanup(func() { _ = env.Stop() })
	k8s, err := client.New(env.Config, client.Options{Scheme: env.Scheme})
	g.Expect(err).NotTo(HaveOccurred())
	cs, err := kubernetes.NewForConfig(env.Config)
	g.Expect(err).NotTo(HaveOccurred())
	for _, ns := range []string{systemNS, ledgerNS} {
		g.Expect(k8s.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}})).To(Succeed())
	}
	testenv.ApplyShippedClusterRole(t, k8s, "metrics_reader_role.yaml")
	token := testenv.ServiceAccountToken(t, cs, k8s, ledgerNS, "prometheus", "metrics-reader")

	srv := gitserver.Start(t, gitserver.Options{})
	srv.NewRepo(t, "config", map[string]string{
		"base/kustomization.yaml":          "resources:\n- cm.yaml\n",
		"base/cm.yaml":                     "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: web}\ndata: {size: '1'}\n",
		"overlays/dev/kustomization.yaml":  "resources:\n- ../../base\nnamePrefix: dev-\n",
		"overlays/prod/kustomization.yaml": "resources:\n- ../../base\nnamePrefix: prod-\n",
	})
	for _, site := range []string{"dev", "prod"} {
		app := application(site)
		app.Object["spec"] = map[string]any{"project": "default", "destination": map[string]any{"name": site}}
		g.Expect(k8s.Create(ctx, app)).To(Succeed())
	}
	ss := &gitopsv1alpha1.SiteSync{ObjectMeta: metav1.ObjectMeta{Namespace: ledgerNS, Name: "sites"},
		Spec: gitopsv1alpha1.SiteSyncSpec{
			Source:   gitopsv1alpha1.GitSource{URL: srv.URL("config"), Ref: gitserver.DefaultBranch},
			Interval: &metav1.Duration{Duration: time.Hour},
			Delivery: &gitopsv1alpha1.Delivery{Namespace: ledgerNS},
		}}
	g.Expect(k8s.Create(ctx, ss)).To(Succeed())

	firstAddr := addrOf(freePort(t))
	first := newScraper(firstAddr)
	m := startShardManager(t, env, "first", "--metrics-bind-address="+firstAddr)

	// R1: both sites rendered; Argo CD reports both Synced and Healthy at the rendered head.
	head := deliverRevision(t, k8s, 1, "dev", "prod")
	// R2 changes dev only; Argo CD syncs the new head on both.
	wt := srv.Clone(t, "config")
	wt.Write("overlays/dev/kustomization.yaml", "resources:\n- ../../base\nnamePrefix: dev2-\n")
	wt.Commit("dev: a new prefix")
	wt.Push()
	annotate(t, k8s, ss, gitopsv1alpha1.RequestedAtAnnotation, time.Now().Format(time.RFC3339Nano))
	g.Expect(deliverRevision(t, k8s, 2, "dev", "prod")).NotTo(Equal(head))

	got := &gitopsv1alpha1.SiteSync{}
	g.Expect(k8s.Get(ctx, client.ObjectKeyFromObject(ss), got)).To(Succeed())
	var leadSum float64
	for _, rec := range got.Status.History {
		leadSum += rec.DeliveredAt.Sub(rec.CommittedAt.Time).Seconds()
	}
	var before map[string]float64
	g.Eventually(func(g Gomega) {
		before = ledgerValues(g, first, token)
		g.Expect(before).To(HaveKeyWithValue("siteops_ledger_deployments", 2.0))
		g.Expect(before).To(HaveKeyWithValue("siteops_ledger_failed_changes", 0.0))
		g.Expect(before).To(HaveKeyWithValue("siteops_ledger_change_failure_ratio", 0.0))
		g.Expect(before).To(HaveKeyWithValue("siteops_ledger_deployments_per_day", 2.0/30))
		g.Expect(before).To(HaveKeyWithValue("siteops_ledger_lead_time_seconds_count", 2.0))
		g.Expect(before).To(HaveKeyWithValue("siteops_ledger_lead_time_seconds_sum", leadSum))
		g.Expect(before).To(HaveKeyWithValue("siteops_ledger_time_to_restore_seconds_count", 0.0))
	}, eventually, time.Second).Should(Succeed())

	// A restart: the first manager process stops (SIGTERM), a second starts with an empty clone cache.
	g.Expect(m.cmd.Process.Signal(syscall.SIGTERM)).To(Succeed())
	g.Eventually(m.done, eventually).Should(BeClosed())
	secondAddr := addrOf(freePort(t))
	second := newScraper(secondAddr)
	startShardManager(t, env, "second", "--metrics-bind-address="+secondAddr)
	g.Eventually(func(g Gomega) {
		g.Expect(ledgerValues(g, second, token)).To(Equal(before))
	}, eventually, time.Second).Should(Succeed())
}

// deliverRevision waits until the SiteSync has published its n-th revision, reports every site's
// Application Synced and Healthy at the rendered head, waits until the revision is recorded delivered and
// returns the head.
func deliverRevision(t *testing.T, k8s client.Client, n int, sites ...string) string {
	t.Helper()
	g := NewWithT(t)
	ss := &gitopsv1alpha1.SiteSync{}
	key := client.ObjectKey{Namespace: ledgerNS, Name: "sites"}
	g.Eventually(func(g Gomega) {
		g.Expect(k8s.Get(context.Background(), key, ss)).To(Succeed())
		g.Expect(ss.Status.History).To(HaveLen(n))
	}, eventually, 200*time.Millisecond).Should(Succeed())
	head := ss.Status.RenderedRevision
	for _, site := range sites {
		data, err := json.Marshal(map[string]any{"status": map[string]any{
			"sync":   map[string]any{"status": "Synced", "revision": head},
			"health": map[string]any{"status": "Healthy"},
		}})
		g.Expect(err).NotTo(HaveOccurred())
		g.Expect(k8s.Status().Patch(context.Background(), application(site),
			client.RawPatch("application/merge-patch+json", data))).To(Succeed())
	}
	g.Eventually(func(g Gomega) {
		g.Expect(k8s.Get(context.Background(), key, ss)).To(Succeed())
		g.Expect(ss.Status.History[0].DeliveredAt).NotTo(BeNil())
	}, eventually, 200*time.Millisecond).Should(Succeed())
	return head
}

// application is the Argo CD Application of site, labelled for the SiteSync "sites" as base/argocd's
// ApplicationSet labels it.
func application(site string) *unstructured.Unstructured {
	app := &unstructured.Unstructured{}
	app.SetAPIVersion("argoproj.io/v1alpha1")
	app.SetKind("Application")
	app.SetNamespace(ledgerNS)
	app.SetName("siteops-" + site)
	app.SetLabels(map[string]string{gitopsv1alpha1.LabelSiteSync: "sites", gitopsv1alpha1.LabelSite: site})
	return app
}

// annotate sets an annotation on obj.
func annotate(t *testing.T, k8s client.Client, obj client.Object, key, value string) {
	t.Helper()
	data, err := json.Marshal(map[string]any{"metadata": map[string]any{"annotations": map[string]string{key: value}}})
	NewWithT(t).Expect(err).NotTo(HaveOccurred())
	NewWithT(t).Expect(k8s.Patch(context.Background(), obj, client.RawPatch("application/merge-patch+json",
		data))).To(Succeed())
}

// ledgerValues scrapes the ledger's series of ledger-test/sites: gauges by name, summaries as name_count,
// name_sum and name{quantile}.
func ledgerValues(g Gomega, s *scraper, token string) map[string]float64 {
	fams, err := s.families(token)
	g.Expect(err).NotTo(HaveOccurred())
	out := map[string]float64{}
	for _, name := range ledgerSeries {
		for _, m := range series(fams, name, map[string]string{"namespace": ledgerNS, "name": "sites"}) {
			out[name] = m.GetGauge().GetValue()
			if sm := m.GetSummary(); sm != nil {
				delete(out, name)
				out[name+"_count"], out[name+"_sum"] = float64(sm.GetSampleCount()), sm.GetSampleSum()
				for _, q := range sm.GetQuantile() {
					out[name+"{"+strconv.FormatFloat(q.GetQuantile(), 'g', -1, 64)+"}"] = q.GetValue()
				}
			}
		}
	}
	return out
}
