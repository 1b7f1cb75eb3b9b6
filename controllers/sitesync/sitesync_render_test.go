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
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	"sigs.k8s.io/controller-runtime/pkg/client"

	gitopsv1alpha1 "github.com/siteops/siteops/apis/gitops/v1alpha1"
	"github.com/siteops/siteops/gitops"
	"github.com/siteops/siteops/test/gitserver"
)

// waitReady waits until the SiteSync has synced source revision rev for its current generation and is Ready.
func waitReady(t *testing.T, key client.ObjectKey, rev string) *gitopsv1alpha1.SiteSync {
	t.Helper()
	var ss *gitopsv1alpha1.SiteSync
	NewWithT(t).Eventually(func(g Gomega) {
		ss = getSiteSync(t.Context(), g, key)
		g.Expect(ss.Status.ObservedGeneration).To(Equal(ss.Generation))
		g.Expect(ss.Status.SourceRevision).To(Equal(rev))
		g.Expect(meta.IsStatusConditionTrue(ss.Status.Conditions, gitopsv1alpha1.ConditionReady)).To(BeTrue(),
			"conditions: %+v", ss.Status.Conditions)
	}).WithTimeout(waitTimeout).Should(Succeed())
	return ss
}

func TestSiteSyncRendersEverySiteAndFillsStatus(t *testing.T) {
	useSuite(t)
	g := NewWithT(t)
	ns, repo := newNamespace(t), newRepoName(t)
	suite.git.NewRepo(t, repo, configRepo())
	source := suite.git.Head(t, repo, gitserver.DefaultBranch)
	gitSecret(t, ns, "git", nil)
	created := newSiteSync(t, ns, repo)
	key := client.ObjectKeyFromObject(created)

	ss := waitReady(t, key, source)

	rendered := suite.git.Head(t, repo, gitops.DefaultTargetBranch)
	g.Expect(rendered).NotTo(BeEmpty())
	g.Expect(ss.Status.RenderedRevision).To(Equal(rendered))
	g.Expect(ss.Status.LastSyncTime).NotTo(BeNil())
	g.Expect(ss.Status.Sites).To(HaveLen(3))
	for _, name := range []string{"dev", "prod", "staging"} {
		s, ok := siteStatus(ss, name)
		g.Expect(ok).To(BeTrue(), name)
		g.Expect(s.Ready).To(BeTrue(), s.Message)
		g.Expect(s.InputDigest).NotTo(BeEmpty())
		g.Expect(s.LastRenderedRevision).To(Equal(source))
		content, ok := renderedFile(t, repo, name)
		g.Expect(ok).To(BeTrue(), "%s rendered", name)
		g.Expect(content).To(ContainSubstring("kind: Deployment"))
	}
	prod, _ := renderedFile(t, repo, "prod")
	g.Expect(prod).To(ContainSubstring("replicas: 3"))
	g.Expect(ss.Status.Conditions).To(ContainElements(
		HaveField("Type", gitopsv1alpha1.ConditionReconciling),
		HaveField("Type", gitopsv1alpha1.ConditionStalled),
	))
	g.Expect(meta.IsStatusConditionFalse(ss.Status.Conditions, gitopsv1alpha1.ConditionStalled)).To(BeTrue())

	log := suite.git.Log(t, repo, gitops.DefaultTargetBranch)
	g.Expect(log).To(HaveLen(1))
	g.Expect(log[0].Trailer(gitops.TrailerSourceRevision)).To(Equal(source))
	g.Expect(log[0].Trailer(gitops.TrailerSites)).To(Equal("dev,prod,staging"))

	NewWithT(t).Eventually(func(g Gomega) {
		g.Expect(eventsOf(t.Context(), g, ns)).To(ContainElement(And(
			HaveField("Reason", gitopsv1alpha1.EventRendered), HaveField("Type", corev1.EventTypeNormal),
			HaveField("Message", ContainSubstring(rendered[:12])))))
	}).WithTimeout(waitTimeout).Should(Succeed())
}

func TestSiteSyncPushToOneOverlayRerendersOnlyThatSite(t *testing.T) {
	useSuite(t)
	g := NewWithT(t)
	ns, repo := newNamespace(t), newRepoName(t)
	suite.git.NewRepo(t, repo, configRepo())
	first := suite.git.Head(t, repo, gitserver.DefaultBranch)
	gitSecret(t, ns, "git", nil)
	key := client.ObjectKeyFromObject(newSiteSync(t, ns, repo))
	before := waitReady(t, key, first)
	prodBefore, _ := renderedFile(t, repo, "prod")
	renderedBefore := before.Status.RenderedRevision

	wt := suite.git.Clone(t, repo)
	wt.Write("overlays/dev/site-values.yaml", siteValues(2, "nginx:1.27"))
	pushed := wt.Commit("dev: two replicas on 1.27")
	wt.Push()
	rendersBefore := suite.renders.Load()
	requestSync(t, key, time.Now().UTC().Format(time.RFC3339Nano))

	after := waitReady(t, key, pushed)

	log := suite.git.Log(t, repo, gitops.DefaultTargetBranch)
	g.Expect(log).To(HaveLen(2), "exactly one new rendered commit")
	g.Expect(log[1].SHA).To(Equal(renderedBefore))
	g.Expect(log[0].SHA).To(Equal(after.Status.RenderedRevision))
	g.Expect(log[0].Trailer(gitops.TrailerSourceRevision)).To(Equal(pushed))
	g.Expect(log[0].Trailer(gitops.TrailerSites)).To(Equal("dev"))
	g.Expect(changedFiles(t, repo, log[1].SHA, log[0].SHA)).To(Equal([]string{"dev/" + gitops.ManifestFile}))
	g.Expect(suite.renders.Load()-rendersBefore).To(BeEquivalentTo(1), "only dev was rendered again")

	dev, _ := siteStatus(after, "dev")
	g.Expect(dev.LastRenderedRevision).To(Equal(pushed))
	for _, name := range []string{"prod", "staging"} {
		s, _ := siteStatus(after, name)
		g.Expect(s.LastRenderedRevision).To(Equal(first), "%s was not re-rendered", name)
	}
	prodAfter, _ := renderedFile(t, repo, "prod")
	g.Expect(prodAfter).To(Equal(prodBefore))
	devAfter, _ := renderedFile(t, repo, "dev")
	g.Expect(devAfter).To(ContainSubstring("image: nginx:1.27"))
	g.Expect(after.Status.LastHandledTrigger).NotTo(BeEmpty())
}

func TestSiteSyncSuspendedDoesNotSync(t *testing.T) {
	useSuite(t)
	g := NewWithT(t)
	ns, repo := newNamespace(t), newRepoName(t)
	suite.git.NewRepo(t, repo, configRepo())
	gitSecret(t, ns, "git", nil)
	key := client.ObjectKeyFromObject(newSiteSync(t, ns, repo, func(ss *gitopsv1alpha1.SiteSync) {
		ss.Spec.Suspend = true
	}))

	NewWithT(t).Eventually(func(g Gomega) {
		ss := getSiteSync(t.Context(), g, key)
		c := meta.FindStatusCondition(ss.Status.Conditions, gitopsv1alpha1.ConditionReconciling)
		g.Expect(c).NotTo(BeNil())
		g.Expect(c.Reason).To(Equal(gitopsv1alpha1.ReasonSuspended))
	}).WithTimeout(waitTimeout).Should(Succeed())
	g.Expect(suite.git.Head(t, repo, gitops.DefaultTargetBranch)).To(BeEmpty(), "nothing rendered while suspended")

	ss := getSiteSync(t.Context(), g, key)
	ss.Spec.Suspend = false
	g.Expect(suite.k8s.Update(t.Context(), ss)).To(Succeed())
	waitReady(t, key, suite.git.Head(t, repo, gitserver.DefaultBranch))
}
