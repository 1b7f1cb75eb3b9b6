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
	"os"
	"path/filepath"
	"strings"
	"testing"

	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	gitopsv1alpha1 "github.com/siteops/siteops/apis/gitops/v1alpha1"
	"github.com/siteops/siteops/gitops"
	"github.com/siteops/siteops/gitops/publish"
	"github.com/siteops/siteops/test/gitserver"
)

// TestVerifyPassesOnAnUntouchedSiteAndFailsOnAHandEditOrAnotherKey runs siteops verify against a rendered
// branch that a signed Sync published: the untouched site verifies and names its source commit; a hand edit
// on the rendered branch, another key and a site without attestation exit 1 with a message that says so.
func TestVerifyPassesOnAnUntouchedSiteAndFailsOnAHandEditOrAnotherKey(t *testing.T) {
	g := NewWithT(t)
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	srv := gitserver.Start(t, gitserver.Options{})
	url := srv.NewRepo(t, "config", siteFiles())
	pgp := gitserver.NewOpenPGPKey(t, "siteops", "siteops@example.com", "")
	key, err := publish.ParseSigningKey(pgp.PrivateArmored, nil)
	g.Expect(err).NotTo(HaveOccurred())
	res, err := gitops.NewSyncer(gitops.SyncerOptions{}).Sync(context.Background(), gitops.SyncOptions{
		Source: gitops.SourceSpec{URL: url}, WorkDir: t.TempDir(), Target: gitops.TargetSpec{SigningKey: key}})
	g.Expect(err).NotTo(HaveOccurred())
	keys := t.TempDir()
	public, wrong := filepath.Join(keys, "siteops.asc"), filepath.Join(keys, "other.asc")
	g.Expect(os.WriteFile(public, pgp.PublicArmored, 0o600)).To(Succeed())
	other := gitserver.NewOpenPGPKey(t, "other", "other@example.com", "")
	g.Expect(os.WriteFile(wrong, other.PublicArmored, 0o600)).To(Succeed())
	wt := srv.Clone(t, "config")

	code, out, errOut := cli(t, wt.Dir, "verify", "dev", "--key", public)
	g.Expect(code).To(Equal(0), errOut)
	g.Expect(out).To(HavePrefix("site dev: verified at rendered commit " + res.RenderedRevision + " (branch rendered)\n"))
	g.Expect(out).To(ContainSubstring("  source    " + url + ", commit " + res.SourceRevision + "\n"))
	g.Expect(out).To(MatchRegexp(`  output    dev/manifests.yaml sha256:[0-9a-f]{64}\n`))
	g.Expect(out).To(ContainSubstring("  inputs    overlay: 1 file, sha256:"))
	t.Logf("$ siteops verify dev --key siteops.asc\n%s", out)

	code, out, errOut = cli(t, wt.Dir, "verify", "--key", wrong, "dev")
	g.Expect(code).To(Equal(1))
	g.Expect(out).To(BeEmpty())
	g.Expect(errOut).To(ContainSubstring("bad signature: the envelope carries no valid signature of OpenPGP key"))

	wt.Checkout(gitops.DefaultTargetBranch)
	wt.Write("dev/manifests.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: by-hand\n")
	wt.Commit("a hand edit")
	wt.Push()
	code, _, errOut = cli(t, wt.Dir, "verify", "dev", "--key", public)
	g.Expect(code).To(Equal(1))
	g.Expect(errOut).To(ContainSubstring("siteops verify: site dev in rendered commit "))
	g.Expect(errOut).To(ContainSubstring("the site's folder is not the output siteops attested: " +
		"dev/manifests.yaml was changed"))
	t.Logf("$ siteops verify dev (after a hand edit)\n%s", errOut)
	code, _, errOut = cli(t, wt.Dir, "verify", "dev", "--key", public, "--commit", res.RenderedRevision[:12])
	g.Expect(code).To(Equal(0), errOut)

	code, _, errOut = cli(t, wt.Dir, "verify", "staging", "--key", public)
	g.Expect(code).To(Equal(1))
	g.Expect(errOut).To(ContainSubstring("no attestation for site staging"))

	for _, args := range [][]string{
		{"verify", "dev"}, {"verify", "--key", public}, {"verify", "a", "b", "--key", public},
	} {
		code, _, errOut = cli(t, wt.Dir, args...)
		g.Expect(code).To(Equal(2), "%v: %s", args, errOut)
	}
}

// TestVerifyTakesTheTargetAndKeyOfASiteSync: with --sitesync, verify reads the SiteSync's target and the
// signing key Secret from a real apiserver, uses only the key's public part and prints nothing of the key.
func TestVerifyTakesTheTargetAndKeyOfASiteSync(t *testing.T) {
	g := NewWithT(t)
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	srv := gitserver.Start(t, gitserver.Options{})
	url := srv.NewRepo(t, "config", siteFiles())
	const passphrase = "Verify-pass-91c2"
	pgp := gitserver.NewOpenPGPKey(t, "siteops", "siteops@example.com", passphrase)
	key, err := publish.ParseSigningKey(pgp.PrivateArmored, []byte(passphrase))
	g.Expect(err).NotTo(HaveOccurred())
	res, err := gitops.NewSyncer(gitops.SyncerOptions{}).Sync(context.Background(), gitops.SyncOptions{
		Source: gitops.SourceSpec{URL: url}, WorkDir: t.TempDir(), Target: gitops.TargetSpec{SigningKey: key}})
	g.Expect(err).NotTo(HaveOccurred())

	k8s, kubeconfig := startCluster(t)
	g.Expect(k8s.Create(t.Context(), &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: "hub", Name: "signing"},
		Data: map[string][]byte{"git.asc": pgp.PrivateArmored, "passphrase": []byte(passphrase)}})).To(Succeed())
	for name, signing := range map[string]*gitopsv1alpha1.SigningKey{
		"sites":    {SecretRef: gitopsv1alpha1.LocalSecretReference{Name: "signing"}},
		"unsigned": nil,
	} {
		g.Expect(k8s.Create(t.Context(), &gitopsv1alpha1.SiteSync{
			ObjectMeta: metav1.ObjectMeta{Namespace: "hub", Name: name},
			Spec: gitopsv1alpha1.SiteSyncSpec{Source: gitopsv1alpha1.GitSource{URL: url},
				Target: gitopsv1alpha1.GitTarget{SigningKey: signing}},
		})).To(Succeed())
	}

	code, out, errOut := cli(t, t.TempDir(), "verify", "prod", "--sitesync", "sites", "-n", "hub",
		"--kubeconfig", kubeconfig)
	g.Expect(code).To(Equal(0), errOut)
	g.Expect(out).To(HavePrefix("site prod: verified at rendered commit " + res.RenderedRevision))
	g.Expect(out).To(ContainSubstring("signed by OpenPGP key " + strings.ToLower(pgp.Fingerprint)))
	for _, secret := range []string{passphrase, string(pgp.PrivateArmored[100:140])} {
		g.Expect(out + errOut).NotTo(ContainSubstring(secret))
	}

	code, _, errOut = cli(t, t.TempDir(), "verify", "prod", "--sitesync", "unsigned", "-n", "hub",
		"--kubeconfig", kubeconfig)
	g.Expect(code).To(Equal(1))
	g.Expect(errOut).To(ContainSubstring("SiteSync hub/unsigned has no target.signingKey"))
}
