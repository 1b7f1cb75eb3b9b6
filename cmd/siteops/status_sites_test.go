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
	"strings"
	"testing"
	"time"

	. "github.com/onsi/gomega"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	gitopsv1alpha1 "github.com/siteops/siteops/apis/gitops/v1alpha1"
)

// TestStatusPrintsOneRowPerSiteFromTheAPIServer: `siteops status -n NS` against a real apiserver prints a
// SiteSync's per-site table (SITE, RENDERED, SYNCED, HEALTH, SINCE, MANAGER) as the controller wrote status
// through the status subresource, and Argo CD's message under it for a site that is not delivered; an
// unreachable site's row says so rather than the health Argo CD last saw, and a site Argo CD reports an error on
// never shows Healthy.
func TestStatusPrintsOneRowPerSiteFromTheAPIServer(t *testing.T) {
	g := NewWithT(t)
	k8s, kubeconfigFile := startCluster(t)
	ctx := t.Context()
	ss := &gitopsv1alpha1.SiteSync{ObjectMeta: metav1.ObjectMeta{Namespace: "hub", Name: "sites"},
		Spec: gitopsv1alpha1.SiteSyncSpec{Source: gitopsv1alpha1.GitSource{URL: "https://git.example/config.git"}}}
	g.Expect(k8s.Create(ctx, ss)).To(Succeed())
	const renderedA, renderedB = "aaaaaaaaaaaa0000000000000000000000000000", "bbbbbbbbbbbb0000000000000000000000000000"
	since := metav1.NewTime(time.Now().Add(-30 * time.Hour))
	ss.Status = gitopsv1alpha1.SiteSyncStatus{
		SourceRevision: "0123456789ab0000000000000000000000000000", RenderedRevision: renderedB, Delivered: "1/3",
		Sites: []gitopsv1alpha1.SiteStatus{
			{Name: "paris", Ready: true, SiteDelivery: gitopsv1alpha1.SiteDelivery{RenderedCommit: renderedA,
				Delivery: gitopsv1alpha1.DeliveryDelivered, SyncedRevision: renderedB, SyncStatus: "Synced", Health: "Healthy",
				ManagerRollout: "Suspended", Since: &since}},
			{Name: "rome", Ready: true, SiteDelivery: gitopsv1alpha1.SiteDelivery{RenderedCommit: renderedB,
				Delivery: gitopsv1alpha1.DeliveryDegraded, SyncedRevision: renderedB, SyncStatus: "Synced", Health: "Degraded",
				DeliveryMessage: `Deployment "web" exceeded its progress deadline`, Since: &since}},
			{Name: "oslo", Ready: true, SiteDelivery: gitopsv1alpha1.SiteDelivery{RenderedCommit: renderedA,
				Delivery: gitopsv1alpha1.DeliveryUnreachable, SyncedRevision: renderedA, SyncStatus: "Unknown", Health: "Healthy",
				DeliveryMessage: "ComparisonError: error synchronizing cache state: connection refused", Since: &since}},
			{Name: "lyon", Ready: true, SiteDelivery: gitopsv1alpha1.SiteDelivery{RenderedCommit: renderedB,
				Delivery: gitopsv1alpha1.DeliveryPending, SyncedRevision: renderedB, SyncStatus: "Unknown", Health: "Healthy",
				ManagerRollout: "Missing", DeliveryMessage: `ComparisonError: Failed to load target state: no matches for ` +
					`kind "Rollout" in version "argoproj.io/v1alpha1"`, Since: &since}},
			{Name: "nice", Ready: true, SiteDelivery: gitopsv1alpha1.SiteDelivery{RenderedCommit: renderedB,
				Delivery: gitopsv1alpha1.DeliveryOutOfSync, SyncedRevision: renderedA, SyncStatus: "OutOfSync",
				Health: "Healthy", DeliveryMessage: "one or more objects failed to apply", Since: &since}},
		},
	}
	g.Expect(k8s.Status().Update(ctx, ss)).To(Succeed())

	var stdout, stderr bytes.Buffer
	code := run(context.Background(), []string{"status", "--kubeconfig", kubeconfigFile, "-n", "hub"}, &stdout, &stderr)

	g.Expect(code).To(Equal(exitOK), stderr.String())
	out := stdout.String()
	t.Log("\n" + out)
	g.Expect(out).To(ContainSubstring("SiteSync hub/sites  source 0123456789ab  rendered bbbbbbbbbbbb  Delivered 1/3\n"))
	rows := map[string][]string{}
	for _, line := range strings.Split(out, "\n") {
		if f := strings.Fields(line); len(f) > 0 {
			rows[f[0]] = f
		}
	}
	g.Expect(rows["SITE"]).To(Equal([]string{"SITE", "RENDERED", "SYNCED", "HEALTH", "SINCE", "MANAGER"}))
	g.Expect(rows["paris"]).To(Equal([]string{
		"paris", "aaaaaaaaaaaa", "bbbbbbbbbbbb", "Synced", "Healthy", "30h", "Suspended"}))
	g.Expect(rows["rome"]).To(Equal([]string{"rome", "bbbbbbbbbbbb", "bbbbbbbbbbbb", "Synced", "Degraded", "30h", "-"}))
	g.Expect(out).To(ContainSubstring(`  rome: Deployment "web" exceeded its progress deadline` + "\n"))
	// Argo CD keeps the last health it saw of a cluster it cannot read: the table says Unreachable instead.
	g.Expect(rows["oslo"]).To(Equal([]string{
		"oslo", "aaaaaaaaaaaa", "aaaaaaaaaaaa", "Unknown", "Unreachable", "30h", "-"}))
	g.Expect(out).To(ContainSubstring("  oslo: ComparisonError: error synchronizing cache state: connection refused\n"))
	// Argo CD says Healthy of what it could compare, while it reports an error on the site: the row says where
	// the delivery stands instead, and the note gives Argo CD's error.
	g.Expect(rows["lyon"]).To(Equal([]string{
		"lyon", "bbbbbbbbbbbb", "bbbbbbbbbbbb", "Unknown", "Pending", "30h", "Missing"}))
	g.Expect(out).To(ContainSubstring(`  lyon: ComparisonError: Failed to load target state: no matches for kind`))
	g.Expect(rows["nice"]).To(Equal([]string{
		"nice", "bbbbbbbbbbbb", "aaaaaaaaaaaa", "OutOfSync", "OutOfSync", "30h", "-"}))
	g.Expect(out).To(ContainSubstring("  nice: one or more objects failed to apply\n"))
	g.Expect(out).NotTo(ContainSubstring("paris: "), "a delivered site needs no note")
}
