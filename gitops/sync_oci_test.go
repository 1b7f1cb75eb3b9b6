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

package gitops

import (
	"archive/tar"
	"compress/gzip"
	"errors"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/google/go-containerregistry/pkg/name"
	"github.com/google/go-containerregistry/pkg/registry"
	"github.com/google/go-containerregistry/pkg/v1/remote"
	. "github.com/onsi/gomega"

	"github.com/siteops/siteops/gitops/ociartifact"
	"github.com/siteops/siteops/gitops/provenance"
)

// ociRegistry is an in-process registry on 127.0.0.1 that answers 503 while down is set, and counts the
// manifests pushed to it.
type ociRegistry struct {
	repo      string
	down      atomic.Bool
	manifests atomic.Int64
}

func newOCIRegistry(t *testing.T) *ociRegistry {
	t.Helper()
	reg := &ociRegistry{}
	h := registry.New(registry.WithReferrersSupport(true), registry.Logger(log.New(io.Discard, "", 0)))
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if reg.down.Load() {
			w.WriteHeader(http.StatusServiceUnavailable)
			return
		}
		if r.Method == http.MethodPut && strings.Contains(r.URL.Path, "/manifests/") {
			reg.manifests.Add(1)
		}
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	reg.repo = strings.TrimPrefix(srv.URL, "http://") + "/sites"
	return reg
}

// files reads the files of the artifact at tag.
func (reg *ociRegistry) files(t *testing.T, tag string) map[string]string {
	t.Helper()
	ref, err := name.ParseReference(reg.repo + ":" + tag)
	if err != nil {
		t.Fatal(err)
	}
	img, err := remote.Image(ref)
	if err != nil {
		t.Fatalf("pulling %s: %v", ref, err)
	}
	layers, err := img.Layers()
	if err != nil || len(layers) != 1 {
		t.Fatalf("layers of %s: %d, %v", ref, len(layers), err)
	}
	rc, err := layers[0].Compressed()
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = rc.Close() }()
	zr, err := gzip.NewReader(rc)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for tr := tar.NewReader(zr); ; {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			return out
		}
		if err != nil {
			t.Fatal(err)
		}
		if h.Typeflag == tar.TypeReg {
			b, _ := io.ReadAll(tr)
			out[h.Name] = string(b)
		}
	}
}

// provenance reads the DSSE envelope attached to the artifact digest as a referrer.
func (reg *ociRegistry) provenance(t *testing.T, digest string) string {
	t.Helper()
	d, err := name.NewDigest(reg.repo + "@" + digest)
	if err != nil {
		t.Fatal(err)
	}
	idx, err := remote.Referrers(d)
	if err != nil {
		t.Fatal(err)
	}
	m, err := idx.IndexManifest()
	if err != nil || len(m.Manifests) != 1 || m.Manifests[0].ArtifactType != ociartifact.ProvenanceArtifactType {
		t.Fatalf("referrers of %s: %+v, %v: want one provenance", digest, m, err)
	}
	img, err := remote.Image(d.Context().Digest(m.Manifests[0].Digest.String()))
	if err != nil {
		t.Fatal(err)
	}
	layers, err := img.Layers()
	if err != nil {
		t.Fatal(err)
	}
	rc, err := layers[0].Compressed()
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = rc.Close() }()
	b, err := io.ReadAll(rc)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestSyncPublishesEachChangedSiteAsAnOCIArtifactWithItsProvenance(t *testing.T) {
	t.Parallel()
	g := NewWithT(t)
	e, _ := provenanceEnv(t)
	reg := newOCIRegistry(t)
	e.opts.Target.OCI = &OCITarget{Repository: reg.repo}
	res := e.sync(t, nil)
	g.Expect(res.Pushed).To(BeTrue())
	g.Expect(res.OCIError).NotTo(HaveOccurred())
	for _, s := range []string{"dev", "prod", "edge"} {
		st := site(t, res, s)
		g.Expect(st.OCI).NotTo(BeNil(), s)
		g.Expect(st.OCI.Commit).To(Equal(res.RenderedRevision), s)
		g.Expect(st.OCI.Tag).To(Equal(s+"-"+res.RenderedRevision[:12]), s)
		g.Expect(st.OCI.Message).To(BeEmpty(), s)
		g.Expect(st.OCI.Digest).To(HavePrefix("sha256:"), s)
		for _, tag := range []string{st.OCI.Tag, s} {
			g.Expect(reg.files(t, tag)).To(Equal(map[string]string{ManifestFile: e.rendered(t, s)}), tag)
		}
		att, ok := e.srv.ReadFile(t, e.repo, DefaultTargetBranch, provenance.AttestationPath(s))
		g.Expect(ok).To(BeTrue())
		g.Expect(reg.provenance(t, st.OCI.Digest)).To(Equal(att), s)
	}

	// Nothing changed: nothing is pushed again, and the sites keep their artifacts.
	pushed := reg.manifests.Load()
	again := e.sync(t, &res)
	g.Expect(reg.manifests.Load()).To(Equal(pushed))
	g.Expect(site(t, again, "dev").OCI).To(Equal(site(t, res, "dev").OCI))

	// A change to dev publishes dev alone, at the commit that changed its folder.
	wt := e.srv.Clone(t, e.repo)
	wt.Write("overlays/dev/site-values.yaml", siteValues(2, "nginx:1.25"))
	wt.Commit("dev: two replicas")
	wt.Push()
	third := e.sync(t, &again)
	g.Expect(third.ChangedSites).To(Equal([]string{"dev"}))
	g.Expect(site(t, third, "dev").OCI.Commit).To(Equal(third.RenderedRevision))
	g.Expect(site(t, third, "prod").OCI).To(Equal(site(t, res, "prod").OCI))
	g.Expect(reg.files(t, "dev")).To(Equal(map[string]string{ManifestFile: e.rendered(t, "dev")}))
}

func TestSyncPublishesGitWhenTheRegistryIsDownAndTheArtifactsOnceItIsBack(t *testing.T) {
	t.Parallel()
	g := NewWithT(t)
	e := newSyncEnv(t, baseRepo())
	reg := newOCIRegistry(t)
	e.opts.Target.OCI = &OCITarget{Repository: reg.repo}
	reg.down.Store(true)
	res := e.sync(t, nil)
	g.Expect(res.Pushed).To(BeTrue())
	g.Expect(e.rendered(t, "dev")).To(ContainSubstring("kind: Deployment"))
	g.Expect(res.OCIError).To(HaveOccurred())
	g.Expect(IsPermanent(res.OCIError)).To(BeFalse(), "an unavailable registry is worth retrying")
	dev := site(t, res, "dev")
	g.Expect(dev.Ready).To(BeTrue())
	g.Expect(dev.OCI.Digest).To(BeEmpty())
	g.Expect(dev.OCI.Message).To(ContainSubstring("site dev"))

	reg.down.Store(false)
	again := e.sync(t, &res)
	g.Expect(again.Pushed).To(BeFalse())
	g.Expect(again.OCIError).NotTo(HaveOccurred())
	for _, s := range []string{"dev", "prod", "edge"} {
		st := site(t, again, s)
		g.Expect(st.OCI.Digest).To(HavePrefix("sha256:"), s)
		g.Expect(st.OCI.Message).To(BeEmpty(), s)
		g.Expect(reg.files(t, st.OCI.Tag)).To(Equal(map[string]string{ManifestFile: e.rendered(t, s)}), s)
	}
}
