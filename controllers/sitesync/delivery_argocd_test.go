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

package sitesync

import (
	"testing"
	"time"

	. "github.com/onsi/gomega"
	"k8s.io/apimachinery/pkg/api/meta"
	"sigs.k8s.io/controller-runtime/pkg/client"

	gitopsv1alpha1 "github.com/siteops/siteops/apis/gitops/v1alpha1"
	"github.com/siteops/siteops/gitops"
	"github.com/siteops/siteops/test/gitserver"
)

// waitSite waits until check passes on the SiteSync's status entry of site, and returns the SiteSync.
func waitSite(t *testing.T, key client.ObjectKey, site string,
	check func(g Gomega, s gitopsv1alpha1.SiteStatus)) *gitopsv1alpha1.SiteSync {
	t.Helper()
	var ss *gitopsv1alpha1.SiteSync
	NewWithT(t).Eventually(func(g Gomega) {
		ss = getSiteSync(t.Context(), g, key)
		s, ok := siteStatus(ss, site)
		g.Expect(ok).To(BeTrue(), "site %s in status", site)
		check(g, s)
	}).WithTimeout(waitTimeout).Should(Succeed())
	return ss
}

// rendered waits for the first sync and returns the SiteSync.
func renderedSiteSync(t *testing.T, ns string, sites ...string) (client.ObjectKey, string, *gitopsv1alpha1.SiteSync) {
	t.Helper()
	repo := newRepoName(t)
	suite.git.NewRepo(t, repo, configRepo())
	gitSecret(t, ns, "git", nil)
	key := client.ObjectKeyFromObject(newSiteSync(t, ns, repo, inNamespace(ns), onlySites(sites...)))
	ss := waitSite(t, key, sites[0], func(g Gomega, s gitopsv1alpha1.SiteStatus) {
		g.Expect(s.RenderedCommit).NotTo(BeEmpty())
	})
	return key, repo, ss
}

// TestDeliverySyncedAndHealthyAtTheRenderedCommitMakesTheSiteDelivered: Argo CD reporting the site's
// Application Synced and Healthy at the rendered commit makes the site Delivered, status.delivered "1/1" and
// Ready say "1 of 1 sites synced and healthy at their rendered revision"; Healthy at an older revision does not.
func TestDeliverySyncedAndHealthyAtTheRenderedCommitMakesTheSiteDelivered(t *testing.T) {
	useSuite(t)
	g := NewWithT(t)
	ns := newNamespace(t)
	key, _, ss := renderedSiteSync(t, ns, "dev")
	dev, _ := siteStatus(ss, "dev")
	g.Expect(dev.RenderedCommit).To(Equal(ss.Status.RenderedRevision))
	firstSync := ss.Status.LastSyncTime

	newApp(t, ns, "dev")
	setAppStatus(t, ns, "dev", appStatus("Synced", "1111111111111111111111111111111111111111", "Healthy", ""))
	waitSite(t, key, "dev", func(g Gomega, s gitopsv1alpha1.SiteStatus) {
		g.Expect(s.Delivery).To(Equal(gitopsv1alpha1.DeliveryPending), deliveryOf(s))
	})

	setAppStatus(t, ns, "dev", appStatus("Synced", dev.RenderedCommit, "Healthy", ""))
	ss = waitSite(t, key, "dev", func(g Gomega, s gitopsv1alpha1.SiteStatus) {
		g.Expect(s.Delivery).To(Equal(gitopsv1alpha1.DeliveryDelivered), deliveryOf(s))
	})
	got, _ := siteStatus(ss, "dev")
	g.Expect(got.Application).To(Equal(ns + "/siteops-dev"))
	g.Expect(got.SyncedRevision).To(Equal(dev.RenderedCommit))
	g.Expect(got.SyncStatus).To(Equal("Synced"))
	g.Expect(got.Health).To(Equal("Healthy"))
	g.Expect(got.Since).NotTo(BeNil())
	g.Expect(ss.Status.Delivered).To(Equal("1/1"))
	ready := meta.FindStatusCondition(ss.Status.Conditions, gitopsv1alpha1.ConditionReady)
	g.Expect(ready.Status).To(BeEquivalentTo("True"))
	g.Expect(ready.Message).To(HavePrefix("1 of 1 sites synced and healthy at their rendered revision"))
	g.Expect(ss.Status.LastSyncTime).To(Equal(firstSync), "an Application's change is reported without a sync from Git")
}

// TestDeliveryDegradedSiteGetsOneWarningWithArgoCDsMessage: one site turning Degraded gets one SiteDegraded
// Warning carrying Argo CD's message, however often Argo CD rewrites its status; the other site stays
// Delivered and Ready says 1 of 2 with the reason SitesNotDelivered.
func TestDeliveryDegradedSiteGetsOneWarningWithArgoCDsMessage(t *testing.T) {
	useSuite(t)
	g := NewWithT(t)
	ns := newNamespace(t)
	newApp(t, ns, "dev")
	newApp(t, ns, "prod")
	key, _, ss := renderedSiteSync(t, ns, "dev", "prod")
	for _, site := range []string{"dev", "prod"} {
		s, _ := siteStatus(ss, site)
		setAppStatus(t, ns, site, appStatus("Synced", s.RenderedCommit, "Healthy", ""))
	}
	g.Eventually(func(g Gomega) {
		g.Expect(getSiteSync(t.Context(), g, key).Status.Delivered).To(Equal("2/2"))
	}).WithTimeout(waitTimeout).Should(Succeed())

	const msg = `Deployment "web" exceeded its progress deadline`
	prod, _ := siteStatus(ss, "prod")
	setAppStatus(t, ns, "prod", appStatus("Synced", prod.RenderedCommit, "Degraded", msg))
	ss = waitSite(t, key, "prod", func(g Gomega, s gitopsv1alpha1.SiteStatus) {
		g.Expect(s.Delivery).To(Equal(gitopsv1alpha1.DeliveryDegraded), deliveryOf(s))
	})
	got, _ := siteStatus(ss, "prod")
	g.Expect(got.DeliveryMessage).To(Equal(msg))
	dev, _ := siteStatus(ss, "dev")
	g.Expect(dev.Delivery).To(Equal(gitopsv1alpha1.DeliveryDelivered))
	g.Expect(ss.Status.Delivered).To(Equal("1/2"))
	ready := meta.FindStatusCondition(ss.Status.Conditions, gitopsv1alpha1.ConditionReady)
	g.Expect(ready.Reason).To(Equal(gitopsv1alpha1.ReasonSitesNotDelivered))
	g.Expect(ready.Message).To(ContainSubstring("1 of 2 sites synced and healthy at their rendered revision"))
	g.Expect(ready.Message).To(ContainSubstring("prod Degraded (" + msg + ")"))

	g.Eventually(func(g Gomega) {
		g.Expect(warnings(g, t, ns, gitopsv1alpha1.EventSiteDegraded)).To(ConsistOf(ContainSubstring(msg)))
	}).WithTimeout(waitTimeout).Should(Succeed())
	// Argo CD rewrites the status with another message: still Degraded, no second event.
	setAppStatus(t, ns, "prod", appStatus("Synced", prod.RenderedCommit, "Degraded", msg+" (again)"))
	waitSite(t, key, "prod", func(g Gomega, s gitopsv1alpha1.SiteStatus) {
		g.Expect(s.DeliveryMessage).To(HaveSuffix("(again)"))
	})
	g.Consistently(func(g Gomega) {
		g.Expect(warnings(g, t, ns, gitopsv1alpha1.EventSiteDegraded)).To(HaveLen(1))
	}).WithTimeout(2 * time.Second).Should(Succeed())
}

// TestDeliveryOutOfSyncIsReportedOnlyWhenArgoCDIsNotSyncing: OutOfSync while Argo CD syncs is on its way
// (Pending, no event); OutOfSync after a failed sync is OutOfSync with the operation's message and one
// SiteOutOfSync Warning.
func TestDeliveryOutOfSyncIsReportedOnlyWhenArgoCDIsNotSyncing(t *testing.T) {
	useSuite(t)
	g := NewWithT(t)
	ns := newNamespace(t)
	newApp(t, ns, "dev")
	key, _, ss := renderedSiteSync(t, ns, "dev")
	dev, _ := siteStatus(ss, "dev")

	syncing := appStatus("OutOfSync", dev.RenderedCommit, "Healthy", "")
	syncing["operationState"] = map[string]any{"phase": "Running", "message": "waiting for healthy state"}
	setAppStatus(t, ns, "dev", syncing)
	waitSite(t, key, "dev", func(g Gomega, s gitopsv1alpha1.SiteStatus) {
		g.Expect(s.SyncStatus).To(Equal("OutOfSync"))
		g.Expect(s.Delivery).To(Equal(gitopsv1alpha1.DeliveryPending), deliveryOf(s))
	})

	const failed = "one or more objects failed to apply, reason: admission webhook denied the request"
	setAppStatus(t, ns, "dev", map[string]any{"operationState": map[string]any{"phase": "Failed", "message": failed}})
	ss = waitSite(t, key, "dev", func(g Gomega, s gitopsv1alpha1.SiteStatus) {
		g.Expect(s.Delivery).To(Equal(gitopsv1alpha1.DeliveryOutOfSync), deliveryOf(s))
		g.Expect(s.DeliveryMessage).To(Equal(failed))
	})
	g.Expect(ss.Status.Delivered).To(Equal("0/1"))
	g.Eventually(func(g Gomega) {
		g.Expect(warnings(g, t, ns, gitopsv1alpha1.EventSiteOutOfSync)).To(ConsistOf(ContainSubstring(failed)))
	}).WithTimeout(waitTimeout).Should(Succeed())
}

// TestDeliverySiteWithoutApplicationSaysSo: with an Application for one site only, the other is
// NoApplication, its message names the labels to set, and it is not counted as delivered.
func TestDeliverySiteWithoutApplicationSaysSo(t *testing.T) {
	useSuite(t)
	g := NewWithT(t)
	ns := newNamespace(t)
	newApp(t, ns, "dev")
	key, _, _ := renderedSiteSync(t, ns, "dev", "prod")
	ss := waitSite(t, key, "prod", func(g Gomega, s gitopsv1alpha1.SiteStatus) {
		g.Expect(s.Delivery).To(Equal(gitopsv1alpha1.DeliveryNoApplication), deliveryOf(s))
	})
	prod, _ := siteStatus(ss, "prod")
	g.Expect(prod.DeliveryMessage).To(Equal("no Argo CD Application in namespace " + ns +
		" is labelled gitops.siteops.dev/sitesync=sites and gitops.siteops.dev/site=prod"))
	g.Expect(ss.Status.Delivered).To(Equal("0/2"))
	ready := meta.FindStatusCondition(ss.Status.Conditions, gitopsv1alpha1.ConditionReady)
	g.Expect(ready.Reason).To(Equal(gitopsv1alpha1.ReasonSitesNotDelivered))
	g.Expect(ready.Message).To(ContainSubstring("prod NoApplication"))
}

// TestRefreshIsAskedOfTheChangedSitesAfterAPush: after each push siteops sets argocd.argoproj.io/refresh on
// the Applications of the sites whose folder changed, and not on the others.
func TestRefreshIsAskedOfTheChangedSitesAfterAPush(t *testing.T) {
	useSuite(t)
	g := NewWithT(t)
	ns := newNamespace(t)
	newApp(t, ns, "dev")
	newApp(t, ns, "prod")
	key, repo, ss := renderedSiteSync(t, ns, "dev", "prod")
	g.Eventually(func(g Gomega) {
		for _, site := range []string{"dev", "prod"} {
			g.Expect(getApp(g, t, ns, site).GetAnnotations()).To(HaveKeyWithValue(refreshAnnotation, refreshNormal), site)
		}
	}).WithTimeout(waitTimeout).Should(Succeed())
	// Argo CD refreshed both at the first rendered commit and removed the annotation.
	for _, site := range []string{"dev", "prod"} {
		app := getApp(g, t, ns, site)
		app.SetAnnotations(nil)
		g.Expect(suite.k8s.Update(t.Context(), app)).To(Succeed())
		setAppStatus(t, ns, site, appStatus("Synced", ss.Status.RenderedRevision, "Healthy", ""))
	}

	wt := suite.git.Clone(t, repo)
	wt.Write("overlays/dev/site-values.yaml", siteValues(2, "nginx:1.27"))
	wt.Commit("dev: two replicas")
	wt.Push()
	source := suite.git.Head(t, repo, gitserver.DefaultBranch)
	requestSync(t, key, time.Now().UTC().Format(time.RFC3339Nano))
	ss = waitSite(t, key, "dev", func(g Gomega, s gitopsv1alpha1.SiteStatus) {
		g.Expect(s.LastRenderedRevision).To(Equal(source))
	})
	g.Expect(ss.Status.RenderedRevision).To(Equal(suite.git.Head(t, repo, gitops.DefaultTargetBranch)))
	g.Eventually(func(g Gomega) {
		g.Expect(getApp(g, t, ns, "dev").GetAnnotations()).To(HaveKeyWithValue(refreshAnnotation, refreshNormal))
	}).WithTimeout(waitTimeout).Should(Succeed())
	g.Consistently(func(g Gomega) {
		g.Expect(getApp(g, t, ns, "prod").GetAnnotations()).NotTo(HaveKey(refreshAnnotation))
	}).WithTimeout(2 * time.Second).Should(Succeed())
}
