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
	"github.com/siteops/siteops/gitops/provenance"
	"github.com/siteops/siteops/test/gitserver"
)

// bytesSecret creates a Secret with binary-safe data.
func bytesSecret(t *testing.T, ns, name string, data map[string][]byte) {
	t.Helper()
	s := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}, Data: data}
	NewWithT(t).Expect(suite.k8s.Create(t.Context(), s)).To(Succeed())
}

// setSecretData replaces the data of Secret name.
func setSecretData(t *testing.T, ns, name string, data map[string][]byte) {
	t.Helper()
	g := NewWithT(t)
	s := &corev1.Secret{}
	g.Expect(suite.k8s.Get(t.Context(), client.ObjectKey{Namespace: ns, Name: name}, s)).To(Succeed())
	s.Data = data
	g.Expect(suite.k8s.Update(t.Context(), s)).To(Succeed())
}

func withSigningKey(secret string) func(*gitopsv1alpha1.SiteSync) {
	return func(ss *gitopsv1alpha1.SiteSync) {
		ss.Spec.Target.SigningKey = &gitopsv1alpha1.SigningKey{SecretRef: gitopsv1alpha1.LocalSecretReference{Name: secret}}
	}
}

func TestSiteSyncSignsEveryRenderedCommit(t *testing.T) {
	useSuite(t)
	g := NewWithT(t)
	ns, repo := newNamespace(t), newRepoName(t)
	suite.git.NewRepo(t, repo, configRepo())
	gitSecret(t, ns, "git", nil)
	const passphrase = "Signing-pass-7f3e"
	pgp := gitserver.NewOpenPGPKey(t, "siteops", "siteops@example.com", passphrase)
	bytesSecret(t, ns, "signing", map[string][]byte{"git.asc": pgp.PrivateArmored, "passphrase": []byte(passphrase)})
	key := client.ObjectKeyFromObject(newSiteSync(t, ns, repo, withSigningKey("signing")))

	ss := waitReady(t, key, suite.git.Head(t, repo, gitserver.DefaultBranch))

	gpg := gitserver.NewGPG(t)
	gpg.Import(t, pgp.PublicArmored)
	out, err := gpg.VerifyCommit(suite.git, repo, ss.Status.RenderedRevision)
	g.Expect(err).NotTo(HaveOccurred(), out)
	g.Expect(out).To(ContainSubstring(`Good signature from "siteops <siteops@example.com>"`))
	assertNoLeak(t, ns, repo, passphrase, string(pgp.PrivateArmored[100:140]))
}

func TestSiteSyncUnreadableSigningKeyStallsAndPushesNothing(t *testing.T) {
	useSuite(t)
	g := NewWithT(t)
	ns, repo := newNamespace(t), newRepoName(t)
	suite.git.NewRepo(t, repo, configRepo())
	gitSecret(t, ns, "git", nil)
	const passphrase = "Right-pass-91ac"
	pgp := gitserver.NewOpenPGPKey(t, "siteops", "siteops@example.com", passphrase)
	bytesSecret(t, ns, "signing", map[string][]byte{"git.asc": pgp.PrivateArmored,
		"passphrase": []byte("Wrong-pass-0b2d")})
	key := client.ObjectKeyFromObject(newSiteSync(t, ns, repo, withSigningKey("signing")))

	ss := waitCondition(t, key, gitopsv1alpha1.ConditionStalled, metav1.ConditionTrue,
		gitopsv1alpha1.ReasonSigningKeyInvalid)
	msg := meta.FindStatusCondition(ss.Status.Conditions, gitopsv1alpha1.ConditionStalled).Message
	g.Expect(msg).To(ContainSubstring(`signing key secret "signing"`))
	g.Expect(msg).To(ContainSubstring("the passphrase does not unlock it"))
	g.Expect(suite.git.Head(t, repo, gitops.DefaultTargetBranch)).To(BeEmpty(), "nothing is pushed unsigned")

	// A Secret without the key, then one with a public key instead of the private one.
	setSecretData(t, ns, "signing", map[string][]byte{"key.asc": pgp.PublicArmored})
	requestSync(t, key, "no-key")
	g.Eventually(func(g Gomega) {
		ss := getSiteSync(t.Context(), g, key)
		g.Expect(ss.Status.LastHandledTrigger).To(Equal("no-key"))
		g.Expect(meta.FindStatusCondition(ss.Status.Conditions, gitopsv1alpha1.ConditionStalled).Message).
			To(ContainSubstring(`missing key "git.asc"`))
	}).WithTimeout(waitTimeout).Should(Succeed())
	setSecretData(t, ns, "signing", map[string][]byte{"git.asc": pgp.PublicArmored})
	requestSync(t, key, "public-key")
	g.Eventually(func(g Gomega) {
		ss := getSiteSync(t.Context(), g, key)
		g.Expect(ss.Status.LastHandledTrigger).To(Equal("public-key"))
		g.Expect(meta.FindStatusCondition(ss.Status.Conditions, gitopsv1alpha1.ConditionStalled).Message).
			To(ContainSubstring("is a public key"))
	}).WithTimeout(waitTimeout).Should(Succeed())
	g.Expect(suite.git.Head(t, repo, gitops.DefaultTargetBranch)).To(BeEmpty(), "nothing is pushed unsigned")

	// The right passphrase: the first push is signed.
	setSecretData(t, ns, "signing", map[string][]byte{"git.asc": pgp.PrivateArmored, "passphrase": []byte(passphrase)})
	requestSync(t, key, "fixed")
	waitReady(t, key, suite.git.Head(t, repo, gitserver.DefaultBranch))
	gpg := gitserver.NewGPG(t)
	gpg.Import(t, pgp.PublicArmored)
	for _, c := range suite.git.Log(t, repo, gitops.DefaultTargetBranch) {
		out, err := gpg.VerifyCommit(suite.git, repo, c.SHA)
		g.Expect(err).NotTo(HaveOccurred(), out)
	}
	assertNoLeak(t, ns, repo, passphrase, "Wrong-pass-0b2d", string(pgp.PrivateArmored[100:140]))
}

func TestSiteSyncVerifiedSourceStallsOnAnUnsignedCommitAndKeepsTheLastOutput(t *testing.T) {
	useSuite(t)
	g := NewWithT(t)
	ns, repo := newNamespace(t), newRepoName(t)
	suite.git.NewRepo(t, repo, configRepo())
	gitSecret(t, ns, "git", nil)
	dev := gitserver.NewOpenPGPKey(t, "developer", "dev@example.com", "")
	gpg := gitserver.NewGPG(t)
	gpg.Import(t, dev.PrivateArmored)
	bytesSecret(t, ns, "trusted", map[string][]byte{"developer.asc": dev.PublicArmored})
	wt := suite.git.Clone(t, repo)
	wt.Write("overlays/dev/site-values.yaml", siteValues(2, "nginx:1.27"))
	signed := wt.CommitSigned("dev: nginx 1.27", gpg, dev)
	wt.Push()
	key := client.ObjectKeyFromObject(newSiteSync(t, ns, repo, func(ss *gitopsv1alpha1.SiteSync) {
		ss.Spec.Source.Verify = &gitopsv1alpha1.SourceVerification{
			SecretRef: gitopsv1alpha1.LocalSecretReference{Name: "trusted"}}
	}))
	good := waitReady(t, key, signed)
	g.Expect(good.Spec.Source.Verify.Mode).To(Equal("HEAD"), "the default mode")
	renderedHead := suite.git.Head(t, repo, gitops.DefaultTargetBranch)

	wt.Write("overlays/dev/site-values.yaml", siteValues(9, "evil:latest"))
	unsigned := wt.Commit("unsigned change")
	wt.Push()
	requestSync(t, key, "unsigned")
	ss := waitCondition(t, key, gitopsv1alpha1.ConditionStalled, metav1.ConditionTrue,
		gitopsv1alpha1.ReasonSourceNotVerified)
	msg := meta.FindStatusCondition(ss.Status.Conditions, gitopsv1alpha1.ConditionStalled).Message
	g.Expect(msg).To(ContainSubstring("commit " + unsigned[:12] + " is not signed"))
	g.Expect(meta.FindStatusCondition(ss.Status.Conditions, gitopsv1alpha1.ConditionReady).Reason).
		To(Equal(gitopsv1alpha1.ReasonSourceNotVerified))
	g.Expect(ss.Status.SourceRevision).To(Equal(signed), "status still names the last verified revision")
	g.Expect(suite.git.Head(t, repo, gitops.DefaultTargetBranch)).To(Equal(renderedHead),
		"the rendered branch is untouched")
	dev1, _ := renderedFile(t, repo, "dev")
	g.Expect(dev1).To(ContainSubstring("nginx:1.27"))
	g.Eventually(func(g Gomega) {
		g.Expect(eventsOf(t.Context(), g, ns)).To(ContainElement(And(
			HaveField("Reason", gitopsv1alpha1.EventStalled), HaveField("Message", ContainSubstring("is not signed")))))
	}).WithTimeout(waitTimeout).Should(Succeed())

	// A signed fix renders again.
	wt.Write("overlays/dev/site-values.yaml", siteValues(2, "nginx:1.28"))
	fixed := wt.CommitSigned("dev: nginx 1.28", gpg, dev)
	wt.Push()
	requestSync(t, key, "signed-fix")
	waitReady(t, key, fixed)
	dev2, _ := renderedFile(t, repo, "dev")
	g.Expect(dev2).To(ContainSubstring("nginx:1.28"))
}

func TestSiteSyncTrustsThePrivateCAOfItsCredentialsSecret(t *testing.T) {
	useSuite(t)
	ns := newNamespace(t)
	ca := gitserver.NewCA(t)
	tlsGit := gitserver.Start(t, gitserver.Options{TLS: ca, Username: gitUser, Password: gitPassword})
	tlsGit.NewRepo(t, "config", configRepo())
	bytesSecret(t, ns, "git", map[string][]byte{
		"username": []byte(gitUser), "password": []byte(gitPassword), "ca.crt": gitserver.NewCA(t).CertPEM})
	key := client.ObjectKeyFromObject(newSiteSync(t, ns, "unused", func(ss *gitopsv1alpha1.SiteSync) {
		ss.Spec.Source.URL = tlsGit.URL("config")
	}))

	// A CA, but not the server's: a clear, permanent error.
	g := NewWithT(t)
	ss := waitCondition(t, key, gitopsv1alpha1.ConditionStalled, metav1.ConditionTrue, gitopsv1alpha1.ReasonPermanentError)
	g.Expect(meta.FindStatusCondition(ss.Status.Conditions, gitopsv1alpha1.ConditionStalled).Message).
		To(ContainSubstring("TLS certificate is signed by an unknown authority"))
	g.Expect(tlsGit.Head(t, "config", gitops.DefaultTargetBranch)).To(BeEmpty())

	setSecretData(t, ns, "git", map[string][]byte{
		"username": []byte(gitUser), "password": []byte(gitPassword), "ca.crt": ca.CertPEM})
	requestSync(t, key, "right-ca")
	ss = waitReady(t, key, tlsGit.Head(t, "config", gitserver.DefaultBranch))
	g.Expect(tlsGit.Head(t, "config", gitops.DefaultTargetBranch)).To(Equal(ss.Status.RenderedRevision))
}

func TestSiteSyncAttestsEachSiteWithItsSigningKey(t *testing.T) {
	useSuite(t)
	g := NewWithT(t)
	ns, repo := newNamespace(t), newRepoName(t)
	suite.git.NewRepo(t, repo, configRepo())
	gitSecret(t, ns, "git", nil)
	pgp := gitserver.NewOpenPGPKey(t, "siteops", "siteops@example.com", "")
	bytesSecret(t, ns, "signing", map[string][]byte{"git.asc": pgp.PrivateArmored})
	key := client.ObjectKeyFromObject(newSiteSync(t, ns, repo, withSigningKey("signing")))

	ss := waitReady(t, key, suite.git.Head(t, repo, gitserver.DefaultBranch))

	public, err := provenance.ParsePublicKey(pgp.PublicArmored)
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(ss.Status.Sites).NotTo(BeEmpty())
	for _, s := range ss.Status.Sites {
		v, err := gitops.NewSyncer(gitops.SyncerOptions{}).VerifySite(t.Context(), gitops.VerifyOptions{
			WorkDir: t.TempDir(), URL: suite.git.URL(repo), Site: s.Name, Key: public,
			Auth: &gitops.Auth{Username: gitUser, Password: gitPassword}})
		g.Expect(err).NotTo(HaveOccurred(), s.Name)
		g.Expect(v.Commit).To(Equal(ss.Status.RenderedRevision))
		g.Expect(v.Statement.SourceCommit()).To(Equal(ss.Status.SourceRevision))
		g.Expect(v.Statement.Predicate.BuildDefinition.ExternalParameters.SiteSync).To(Equal(key.String()))
	}
}
