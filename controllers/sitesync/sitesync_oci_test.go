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
	"archive/tar"
	"compress/gzip"
	"crypto/tls"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/google/go-containerregistry/pkg/authn"
	"github.com/google/go-containerregistry/pkg/name"
	"github.com/google/go-containerregistry/pkg/registry"
	"github.com/google/go-containerregistry/pkg/v1/remote"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	gitopsv1alpha1 "github.com/siteops/siteops/apis/gitops/v1alpha1"
	"github.com/siteops/siteops/gitops"
	"github.com/siteops/siteops/gitops/ociartifact"
	"github.com/siteops/siteops/gitops/provenance"
	"github.com/siteops/siteops/test/gitserver"
)

const registryUser, registryPassword = "robot", "Registry-pass-5d1c"

// privateRegistry is an in-process registry on 127.0.0.1 behind TLS with httptest's CA and basic auth, that
// answers 503 while down is set.
type privateRegistry struct {
	repo string
	ca   []byte
	down atomic.Bool
}

func newPrivateRegistry(t *testing.T) *privateRegistry {
	t.Helper()
	reg := &privateRegistry{}
	h := registry.New(registry.WithReferrersSupport(true), registry.Logger(log.New(io.Discard, "", 0)))
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if reg.down.Load() {
			w.WriteHeader(http.StatusServiceUnavailable)
			return
		}
		if u, p, ok := r.BasicAuth(); !ok || u != registryUser || p != registryPassword {
			w.Header().Set("WWW-Authenticate", `Basic realm="registry"`)
			w.WriteHeader(http.StatusUnauthorized)
			return
		}
		h.ServeHTTP(w, r)
	}))
	srv.Config.ErrorLog = log.New(io.Discard, "", 0)
	srv.StartTLS()
	t.Cleanup(srv.Close)
	reg.repo = strings.TrimPrefix(srv.URL, "https://") + "/sites"
	reg.ca = pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srv.Certificate().Raw})
	return reg
}

// secret creates the kubernetes.io/dockerconfigjson Secret of the registry, with its CA.
func (reg *privateRegistry) secret(t *testing.T, ns string) {
	t.Helper()
	host, _, _ := strings.Cut(reg.repo, "/")
	cfg := `{"auths":{"` + host + `":{"username":"` + registryUser + `","password":"` + registryPassword + `"}}}`
	s := &corev1.Secret{Type: corev1.SecretTypeDockerConfigJson, Data: map[string][]byte{
		corev1.DockerConfigJsonKey: []byte(cfg), secretKeyCA: reg.ca}}
	s.Namespace, s.Name = ns, "registry"
	NewWithT(t).Expect(suite.k8s.Create(t.Context(), s)).To(Succeed())
}

// pull reads the files of the artifact at ref (a tag or digest of reg.repo) and the referrers of its digest.
func (reg *privateRegistry) pull(t *testing.T, ref string) (map[string]string, []string) {
	t.Helper()
	g := NewWithT(t)
	r, err := name.ParseReference(reg.repo + ref)
	g.Expect(err).NotTo(HaveOccurred())
	opts := []remote.Option{remote.WithAuth(&authn.Basic{Username: registryUser, Password: registryPassword}),
		remote.WithTransport(reg.transport(t))}
	img, err := remote.Image(r, opts...)
	g.Expect(err).NotTo(HaveOccurred())
	layers, err := img.Layers()
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(layers).To(HaveLen(1))
	rc, err := layers[0].Compressed()
	g.Expect(err).NotTo(HaveOccurred())
	defer func() { _ = rc.Close() }()
	zr, err := gzip.NewReader(rc)
	g.Expect(err).NotTo(HaveOccurred())
	files := map[string]string{}
	for tr := tar.NewReader(zr); ; {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		g.Expect(err).NotTo(HaveOccurred())
		b, err := io.ReadAll(tr)
		g.Expect(err).NotTo(HaveOccurred())
		files[h.Name] = string(b)
	}
	digest, err := img.Digest()
	g.Expect(err).NotTo(HaveOccurred())
	idx, err := remote.Referrers(r.Context().Digest(digest.String()), opts...)
	g.Expect(err).NotTo(HaveOccurred())
	m, err := idx.IndexManifest()
	g.Expect(err).NotTo(HaveOccurred())
	var types []string
	for _, d := range m.Manifests {
		types = append(types, d.ArtifactType)
	}
	return files, types
}

// transport is an HTTP transport that trusts the registry's CA.
func (reg *privateRegistry) transport(t *testing.T) http.RoundTripper {
	t.Helper()
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(reg.ca) {
		t.Fatal("the registry's CA cannot be parsed")
	}
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.TLSClientConfig = &tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12}
	return tr
}

func withOCI(repo string) func(*gitopsv1alpha1.SiteSync) {
	return func(ss *gitopsv1alpha1.SiteSync) {
		ss.Spec.Target.OCI = &gitopsv1alpha1.OCITarget{Repository: repo,
			SecretRef: &gitopsv1alpha1.LocalSecretReference{Name: "registry"}}
	}
}

func TestSiteSyncPublishesEachSiteToAPrivateRegistryWithItsProvenance(t *testing.T) {
	useSuite(t)
	g := NewWithT(t)
	ns, repo := newNamespace(t), newRepoName(t)
	suite.git.NewRepo(t, repo, configRepo())
	gitSecret(t, ns, "git", nil)
	pgp := gitserver.NewOpenPGPKey(t, "siteops", "siteops@example.com", "")
	bytesSecret(t, ns, "signing", map[string][]byte{"git.asc": pgp.PrivateArmored})
	reg := newPrivateRegistry(t)
	reg.secret(t, ns)
	key := client.ObjectKeyFromObject(newSiteSync(t, ns, repo, withSigningKey("signing"), withOCI(reg.repo)))

	ss := waitReady(t, key, suite.git.Head(t, repo, gitserver.DefaultBranch))
	g.Expect(ss.Status.Sites).To(HaveLen(3))
	for _, s := range ss.Status.Sites {
		g.Expect(s.OCI).NotTo(BeNil(), s.Name)
		g.Expect(s.OCI.Message).To(BeEmpty(), s.Name)
		g.Expect(s.OCI.RenderedCommit).To(Equal(s.RenderedCommit), s.Name)
		g.Expect(s.OCI.Tag).To(Equal(ociartifact.Tag(s.Name, s.RenderedCommit)), s.Name)
		manifests, ok := suite.git.ReadFile(t, repo, gitops.DefaultTargetBranch, s.Name+"/"+gitops.ManifestFile)
		g.Expect(ok).To(BeTrue())
		for _, ref := range []string{":" + s.OCI.Tag, ":" + s.Name, "@" + s.OCI.Digest} {
			files, referrers := reg.pull(t, ref)
			g.Expect(files).To(Equal(map[string]string{gitops.ManifestFile: manifests}), ref)
			g.Expect(referrers).To(Equal([]string{ociartifact.ProvenanceArtifactType}), ref)
		}
		_, ok = suite.git.ReadFile(t, repo, gitops.DefaultTargetBranch, provenance.AttestationPath(s.Name))
		g.Expect(ok).To(BeTrue())
	}
	assertNoLeak(t, ns, repo, registryPassword)
}

func TestSiteSyncPublishesGitWhileTheRegistryIsDownAndRetriesTheArtifacts(t *testing.T) {
	useSuite(t)
	g := NewWithT(t)
	ns, repo := newNamespace(t), newRepoName(t)
	suite.git.NewRepo(t, repo, configRepo())
	gitSecret(t, ns, "git", nil)
	reg := newPrivateRegistry(t)
	reg.secret(t, ns)
	reg.down.Store(true)
	key := client.ObjectKeyFromObject(newSiteSync(t, ns, repo, withOCI(reg.repo)))

	ss := waitCondition(t, key, gitopsv1alpha1.ConditionReady, "False", gitopsv1alpha1.ReasonSyncFailed)
	g.Expect(suite.git.Head(t, repo, gitops.DefaultTargetBranch)).NotTo(BeEmpty(), "the rendered branch is published")
	g.Expect(ss.Status.Sites).To(HaveLen(3))
	for _, s := range ss.Status.Sites {
		g.Expect(s.Ready).To(BeTrue(), s.Name)
		g.Expect(s.OCI.Digest).To(BeEmpty(), s.Name)
		g.Expect(s.OCI.Message).To(ContainSubstring("site "+s.Name), s.Name)
	}

	reg.down.Store(false)
	ss = waitReady(t, key, suite.git.Head(t, repo, gitserver.DefaultBranch))
	for _, s := range ss.Status.Sites {
		g.Expect(s.OCI.Digest).To(HavePrefix("sha256:"), s.Name)
		files, _ := reg.pull(t, ":"+s.OCI.Tag)
		g.Expect(files).To(HaveKey(gitops.ManifestFile), s.Name)
	}
	assertNoLeak(t, ns, repo, registryPassword)
}
