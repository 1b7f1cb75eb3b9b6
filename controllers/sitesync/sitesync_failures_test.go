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

	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	gitopsv1alpha1 "github.com/siteops/siteops/apis/gitops/v1alpha1"
	"github.com/siteops/siteops/gitops"
	"github.com/siteops/siteops/test/gitserver"
)

// waitCondition waits until the SiteSync's current generation has condition typ with status and reason, and
// returns the object.
func waitCondition(t *testing.T, key client.ObjectKey, typ string, status metav1.ConditionStatus,
	reason string) *gitopsv1alpha1.SiteSync {
	t.Helper()
	var ss *gitopsv1alpha1.SiteSync
	NewWithT(t).Eventually(func(g Gomega) {
		ss = getSiteSync(t.Context(), g, key)
		g.Expect(ss.Status.ObservedGeneration).To(Equal(ss.Generation))
		c := meta.FindStatusCondition(ss.Status.Conditions, typ)
		g.Expect(c).NotTo(BeNil(), "condition %s", typ)
		g.Expect(c.Status).To(Equal(status), "%s: %s", c.Reason, c.Message)
		g.Expect(c.Reason).To(Equal(reason), c.Message)
	}).WithTimeout(waitTimeout).Should(Succeed())
	return ss
}

func TestSiteSyncBrokenOverlayFailsOnlyThatSite(t *testing.T) {
	useSuite(t)
	g := NewWithT(t)
	ns, repo := newNamespace(t), newRepoName(t)
	files := configRepo()
	files["overlays/prod/kustomization.yaml"] = "resources:\n- ../../base\npatches:\n- path: missing-values.yaml\n"
	suite.git.NewRepo(t, repo, files)
	source := suite.git.Head(t, repo, gitserver.DefaultBranch)
	gitSecret(t, ns, "git", nil)
	key := client.ObjectKeyFromObject(newSiteSync(t, ns, repo))

	ss := waitCondition(t, key, gitopsv1alpha1.ConditionReady, metav1.ConditionFalse, gitopsv1alpha1.ReasonSitesFailed)

	g.Expect(ss.Status.SourceRevision).To(Equal(source))
	ready := meta.FindStatusCondition(ss.Status.Conditions, gitopsv1alpha1.ConditionReady)
	g.Expect(ready.Message).To(ContainSubstring("prod"))
	g.Expect(meta.IsStatusConditionTrue(ss.Status.Conditions, gitopsv1alpha1.ConditionStalled)).To(BeFalse())
	prod, _ := siteStatus(ss, "prod")
	g.Expect(prod.Ready).To(BeFalse())
	g.Expect(prod.Message).To(ContainSubstring("missing-values.yaml"), "the kustomize message names the bad patch")
	for _, name := range []string{"dev", "staging"} {
		s, _ := siteStatus(ss, name)
		g.Expect(s.Ready).To(BeTrue(), s.Message)
		_, ok := renderedFile(t, repo, name)
		g.Expect(ok).To(BeTrue(), "%s is published despite prod failing", name)
	}
	_, ok := renderedFile(t, repo, "prod")
	g.Expect(ok).To(BeFalse())
	NewWithT(t).Eventually(func(g Gomega) {
		g.Expect(eventsOf(t.Context(), g, ns)).To(ContainElement(And(
			HaveField("Reason", gitopsv1alpha1.EventSiteFailed), HaveField("Type", corev1.EventTypeWarning),
			HaveField("Message", ContainSubstring("site prod")))))
	}).WithTimeout(waitTimeout).Should(Succeed())

	// Fixing the overlay makes the SiteSync Ready.
	wt := suite.git.Clone(t, repo)
	wt.Write("overlays/prod/kustomization.yaml", "resources:\n- ../../base\npatches:\n- path: site-values.yaml\n")
	fixed := wt.Commit("prod: fix the patch path")
	wt.Push()
	requestSync(t, key, "fix-1")
	after := waitReady(t, key, fixed)
	g.Expect(after.Status.LastHandledTrigger).To(Equal("fix-1"))
	_, ok = renderedFile(t, repo, "prod")
	g.Expect(ok).To(BeTrue())
}

func TestSiteSyncMissingSecretKeyStallsUntilFixed(t *testing.T) {
	useSuite(t)
	g := NewWithT(t)
	ns, repo := newNamespace(t), newRepoName(t)
	suite.git.NewRepo(t, repo, configRepo())
	gitSecret(t, ns, "git", map[string]string{"username": gitUser})
	key := client.ObjectKeyFromObject(newSiteSync(t, ns, repo))

	ss := waitCondition(t, key, gitopsv1alpha1.ConditionStalled, metav1.ConditionTrue, gitopsv1alpha1.ReasonSecretInvalid)
	stalled := meta.FindStatusCondition(ss.Status.Conditions, gitopsv1alpha1.ConditionStalled)
	g.Expect(stalled.Message).To(ContainSubstring(`"password"`), "the message names the missing key")
	g.Expect(stalled.Message).To(ContainSubstring(`"git"`), "the message names the Secret")
	g.Expect(meta.IsStatusConditionFalse(ss.Status.Conditions, gitopsv1alpha1.ConditionReady)).To(BeTrue())
	g.Expect(suite.git.Head(t, repo, gitops.DefaultTargetBranch)).To(BeEmpty())
	NewWithT(t).Eventually(func(g Gomega) {
		g.Expect(eventsOf(t.Context(), g, ns)).To(ContainElement(And(
			HaveField("Reason", gitopsv1alpha1.EventStalled), HaveField("Message", ContainSubstring(`"password"`)))))
	}).WithTimeout(waitTimeout).Should(Succeed())

	// Adding the key to the Secret is picked up at the next look: the interval, or at once when asked for.
	// (siteops may only get Secrets by name, so it does not watch them.)
	secret := &corev1.Secret{}
	g.Expect(suite.k8s.Get(t.Context(), client.ObjectKey{Namespace: ns, Name: "git"}, secret)).To(Succeed())
	secret.StringData = map[string]string{"password": gitPassword}
	g.Expect(suite.k8s.Update(t.Context(), secret)).To(Succeed())
	requestSync(t, key, "secret-fixed")
	waitReady(t, key, suite.git.Head(t, repo, gitserver.DefaultBranch))
}

func TestSiteSyncMissingSecretStallsUntilCreated(t *testing.T) {
	useSuite(t)
	g := NewWithT(t)
	ns, repo := newNamespace(t), newRepoName(t)
	suite.git.NewRepo(t, repo, configRepo())
	key := client.ObjectKeyFromObject(newSiteSync(t, ns, repo))

	ss := waitCondition(t, key, gitopsv1alpha1.ConditionStalled, metav1.ConditionTrue, gitopsv1alpha1.ReasonSecretNotFound)
	g.Expect(meta.FindStatusCondition(ss.Status.Conditions, gitopsv1alpha1.ConditionReady).Reason).
		To(Equal(gitopsv1alpha1.ReasonSecretNotFound))

	gitSecret(t, ns, "git", nil)
	requestSync(t, key, "secret-created")
	waitReady(t, key, suite.git.Head(t, repo, gitserver.DefaultBranch))
}

func TestSiteSyncUnknownRefStalls(t *testing.T) {
	useSuite(t)
	g := NewWithT(t)
	ns, repo := newNamespace(t), newRepoName(t)
	suite.git.NewRepo(t, repo, configRepo())
	gitSecret(t, ns, "git", nil)
	key := client.ObjectKeyFromObject(newSiteSync(t, ns, repo, func(ss *gitopsv1alpha1.SiteSync) {
		ss.Spec.Source.Ref = "no-such-branch"
	}))

	ss := waitCondition(t, key, gitopsv1alpha1.ConditionStalled, metav1.ConditionTrue, gitopsv1alpha1.ReasonPermanentError)
	g.Expect(meta.FindStatusCondition(ss.Status.Conditions, gitopsv1alpha1.ConditionStalled).Message).
		To(ContainSubstring("no-such-branch"))
	g.Expect(meta.IsStatusConditionTrue(ss.Status.Conditions, gitopsv1alpha1.ConditionReconciling)).To(BeFalse())
}

func TestSiteSyncWrongPasswordNeverLeaks(t *testing.T) {
	useSuite(t)
	ns, repo := newNamespace(t), newRepoName(t)
	suite.git.NewRepo(t, repo, configRepo())
	const wrong = "Wrong-pw-5a1d0c-also-secret"
	gitSecret(t, ns, "git", map[string]string{"username": gitUser, "password": wrong})
	key := client.ObjectKeyFromObject(newSiteSync(t, ns, repo))

	NewWithT(t).Eventually(func(g Gomega) {
		ss := getSiteSync(t.Context(), g, key)
		g.Expect(meta.IsStatusConditionFalse(ss.Status.Conditions, gitopsv1alpha1.ConditionReady)).To(BeTrue())
	}).WithTimeout(waitTimeout).Should(Succeed())
	assertNoLeak(t, ns, repo, wrong)
}
