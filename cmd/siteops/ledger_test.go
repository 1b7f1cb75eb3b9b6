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
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	. "github.com/onsi/gomega"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	gitopsv1alpha1 "github.com/siteops/siteops/apis/gitops/v1alpha1"
	"github.com/siteops/siteops/gitops"
	"github.com/siteops/siteops/test/gitserver"
)

// TestLedgerPrintsTheFourMetrics: a SiteSync published two revisions to a real Git server's rendered branch;
// its status.history says the first halted on prod and was restored 30 minutes later, and the second was
// delivered 2 hours after its commit. `siteops ledger` reads both from the cluster and the branch: two
// deployments, one failed (50%), lead time 2h, time to restore 30m, and per site dev's two deployments
// and prod's one, failed.
func TestLedgerPrintsTheFourMetrics(t *testing.T) {
	g := NewWithT(t)
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	k8s, kubeconfig := startCluster(t)
	srv := gitserver.Start(t, gitserver.Options{})
	url := srv.NewRepo(t, "config", map[string]string{
		"base/kustomization.yaml":          "resources:\n- cm.yaml\n",
		"base/cm.yaml":                     "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: web}\ndata: {size: '1'}\n",
		"overlays/dev/kustomization.yaml":  "resources:\n- ../../base\nnamePrefix: dev-\n",
		"overlays/prod/kustomization.yaml": "resources:\n- ../../base\nnamePrefix: prod-\n",
	})
	sy := gitops.NewSyncer(gitops.SyncerOptions{})
	opts := gitops.SyncOptions{Source: gitops.SourceSpec{URL: url, Ref: gitserver.DefaultBranch}, WorkDir: t.TempDir()}
	first, err := sy.Sync(t.Context(), opts)
	g.Expect(err).NotTo(HaveOccurred())
	wt := srv.Clone(t, "config")
	wt.Write("overlays/dev/kustomization.yaml", "resources:\n- ../../base\nnamePrefix: dev2-\n")
	wt.Commit("dev: a new prefix")
	wt.Push()
	second, err := sy.Sync(t.Context(), opts)
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(second.ChangedSites).To(Equal([]string{"dev"}))

	ss := &gitopsv1alpha1.SiteSync{ObjectMeta: metav1.ObjectMeta{Namespace: "hub", Name: "sites"},
		Spec: gitopsv1alpha1.SiteSyncSpec{Source: gitopsv1alpha1.GitSource{URL: url, Ref: gitserver.DefaultBranch}}}
	g.Expect(k8s.Create(t.Context(), ss)).To(Succeed())
	now := time.Now().Truncate(time.Second)
	ago := func(d time.Duration) *metav1.Time { return &metav1.Time{Time: now.Add(-d)} }
	ss.Status.History = []gitopsv1alpha1.RevisionRecord{
		{Revision: second.SourceRevision, CommittedAt: ago(3 * time.Hour), DeliveredAt: ago(time.Hour)},
		{Revision: first.SourceRevision, CommittedAt: ago(5 * time.Hour), HaltedAt: ago(4 * time.Hour),
			FailedSites: []string{"prod"}, RestoredAt: ago(210 * time.Minute)},
	}
	g.Expect(k8s.Status().Update(t.Context(), ss)).To(Succeed())

	var stdout, stderr bytes.Buffer
	code := run(context.Background(), []string{"ledger", "--kubeconfig", kubeconfig, "-n", "hub", "-o", "json"},
		&stdout, &stderr)
	g.Expect(code).To(Equal(exitOK), stderr.String())
	var entries []ledgerEntry
	g.Expect(json.Unmarshal(stdout.Bytes(), &entries)).To(Succeed())
	g.Expect(entries).To(HaveLen(1))
	r := entries[0].Ledger
	g.Expect(entries[0].Namespace + "/" + entries[0].Name).To(Equal("hub/sites"))
	g.Expect(r.To.Sub(r.From)).To(Equal(30 * 24 * time.Hour))
	g.Expect([]any{r.Deployments, r.FailedChanges, r.ChangeFailureRate}).To(Equal([]any{2, 1, 0.5}))
	g.Expect(r.DeploymentsPerDay).To(Equal(2.0 / 30))
	g.Expect(r.LeadTime.Count).To(Equal(1))
	g.Expect(r.LeadTime.MedianSeconds).To(Equal((2 * time.Hour).Seconds()))
	g.Expect(r.TimeToRestore.Count).To(Equal(1))
	g.Expect(r.TimeToRestore.MedianSeconds).To(Equal((30 * time.Minute).Seconds()))
	g.Expect(r.Sites).To(HaveLen(2))
	g.Expect([]any{r.Sites[0].Name, r.Sites[0].Deployments, r.Sites[0].FailedChanges}).To(Equal([]any{"dev", 2, 0}))
	g.Expect([]any{r.Sites[1].Name, r.Sites[1].Deployments, r.Sites[1].FailedChanges}).To(Equal([]any{"prod", 1, 1}))

	stdout.Reset()
	code = run(context.Background(), []string{"ledger", "--kubeconfig", kubeconfig, "-n", "hub", "--window", "7d",
		"sites"}, &stdout, &stderr)
	g.Expect(code).To(Equal(exitOK), stderr.String())
	for _, want := range []string{
		"  deployment frequency  0.29/day (2 deployments)\n",
		"  change failure rate   50% (1 failed)\n",
		"  lead time for changes median 2h0m0s, mean 2h0m0s, max 2h0m0s (1 changes)\n",
		"  time to restore       median 30m0s, mean 30m0s, max 30m0s (1 restores)\n",
		"  dev   2            0.29     0       0%\n",
		"  prod  1            0.14     1       100%\n",
	} {
		g.Expect(stdout.String()).To(ContainSubstring(want))
	}
}

// TestLedgerRefusesABadWindowOrOutput: --window and -o are checked before any cluster is reached.
func TestLedgerRefusesABadWindowOrOutput(t *testing.T) {
	for _, args := range [][]string{{"--window", "0d"}, {"--window", "a month"}, {"-o", "yaml"}, {"a", "b"}} {
		var stdout, stderr bytes.Buffer
		if code := run(context.Background(), append([]string{"ledger"}, args...), &stdout, &stderr); code != exitUsage {
			t.Errorf("ledger %s: exit %d, want %d (stderr %q)", strings.Join(args, " "), code, exitUsage,
				stderr.String())
		}
	}
}
