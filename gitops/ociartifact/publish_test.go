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

package ociartifact

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"context"
	"encoding/base64"
	"encoding/pem"
	"errors"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"net/url"
	"testing"

	"github.com/google/go-containerregistry/pkg/name"
	"github.com/google/go-containerregistry/pkg/registry"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/remote"

	"github.com/siteops/siteops/gitops/internal/permanent"
)

const commit = "0123456789abcdef0123456789abcdef01234567"

var site = Site{Name: "site-a", Commit: commit,
	Files:      map[string][]byte{"manifests.yaml": []byte("apiVersion: v1\nkind: Namespace\nmetadata:\n  name: a\n")},
	Provenance: []byte(`{"payloadType":"application/vnd.in-toto+json","payload":"e30=","signatures":[]}`)}

// newRegistry serves an in-process registry on 127.0.0.1 (TLS with httptest's CA when tls), wrapped by wrap.
func newRegistry(t *testing.T, tls bool, wrap func(http.Handler) http.Handler) *httptest.Server {
	t.Helper()
	h := registry.New(registry.WithReferrersSupport(true), registry.Logger(log.New(io.Discard, "", 0)))
	if wrap != nil {
		h = wrap(h)
	}
	var srv *httptest.Server
	if tls {
		srv = httptest.NewTLSServer(h)
	} else {
		srv = httptest.NewServer(h)
	}
	t.Cleanup(srv.Close)
	return srv
}

func host(t *testing.T, srv *httptest.Server) string {
	u, err := url.Parse(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	return u.Host
}

func caPEM(srv *httptest.Server) []byte {
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srv.Certificate().Raw})
}

func publish(t *testing.T, target Target) (Published, error) {
	t.Helper()
	p, err := NewPublisher(target)
	if err != nil {
		t.Fatalf("NewPublisher: %v", err)
	}
	return p.Publish(context.Background(), site)
}

func TestPublishTagsTheSiteFolderAndAttachesItsProvenance(t *testing.T) {
	srv := newRegistry(t, false, nil)
	repo := host(t, srv) + "/sites"
	got, err := publish(t, Target{Repository: repo})
	if err != nil {
		t.Fatalf("Publish: %v", err)
	}
	if want := []string{"site-a-0123456789ab", "site-a"}; len(got.Tags) != 2 || got.Tags[0] != want[0] ||
		got.Tags[1] != want[1] {
		t.Fatalf("tags = %v, want %v", got.Tags, want)
	}
	for _, tag := range got.Tags {
		desc, err := remote.Get(mustRef(t, repo+":"+tag))
		if err != nil {
			t.Fatalf("get %s: %v", tag, err)
		}
		if desc.Digest.String() != got.Digest {
			t.Errorf("tag %s is %s, want %s", tag, desc.Digest, got.Digest)
		}
	}
	img, err := remote.Image(mustRef(t, repo+":site-a"))
	if err != nil {
		t.Fatal(err)
	}
	m, err := img.Manifest()
	if err != nil {
		t.Fatal(err)
	}
	if m.Config.MediaType != emptyMediaType || len(m.Layers) != 1 || m.Layers[0].MediaType != LayerMediaType {
		t.Fatalf("manifest config %s, layers %v: want the empty config and one tar+gzip layer", m.Config.MediaType,
			m.Layers)
	}
	if m.Annotations[AnnotationSite] != "site-a" || m.Annotations[AnnotationCommit] != commit {
		t.Errorf("annotations = %v", m.Annotations)
	}
	layers, err := img.Layers()
	if err != nil {
		t.Fatal(err)
	}
	files := untar(t, layers[0])
	if len(files) != 1 || files["manifests.yaml"] != string(site.Files["manifests.yaml"]) {
		t.Errorf("artifact files = %v, want the site's folder", files)
	}

	refs, err := remote.Referrers(mustDigest(t, repo+"@"+got.Digest))
	if err != nil {
		t.Fatal(err)
	}
	idx, err := refs.IndexManifest()
	if err != nil {
		t.Fatal(err)
	}
	if len(idx.Manifests) != 1 || idx.Manifests[0].ArtifactType != ProvenanceArtifactType ||
		idx.Manifests[0].Digest.String() != got.ProvenanceDigest {
		t.Fatalf("referrers = %+v, want the provenance %s", idx.Manifests, got.ProvenanceDigest)
	}
	prov, err := remote.Image(mustRef(t, repo+"@"+got.ProvenanceDigest))
	if err != nil {
		t.Fatal(err)
	}
	pl, err := prov.Layers()
	if err != nil {
		t.Fatal(err)
	}
	if mt, _ := pl[0].MediaType(); mt != ProvenanceMediaType {
		t.Errorf("provenance layer media type %s", mt)
	}
	rc, err := pl[0].Compressed()
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = rc.Close() }()
	if b, _ := io.ReadAll(rc); !bytes.Equal(b, site.Provenance) {
		t.Errorf("provenance layer = %s, want the envelope", b)
	}

	again, err := publish(t, Target{Repository: repo})
	if err != nil || again.Digest != got.Digest || again.ProvenanceDigest != got.ProvenanceDigest {
		t.Errorf("publishing again gave %+v (%v), want the same digests as %+v", again, err, got)
	}
}

func untar(t *testing.T, l v1.Layer) map[string]string {
	t.Helper()
	rc, err := l.Compressed()
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = rc.Close() }()
	zr, err := gzip.NewReader(rc)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	tr := tar.NewReader(zr)
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			return out
		}
		if err != nil {
			t.Fatal(err)
		}
		b, err := io.ReadAll(tr)
		if err != nil {
			t.Fatal(err)
		}
		out[h.Name] = string(b)
	}
}

func TestPublishTrustsAPrivateCAOnlyWhenGiven(t *testing.T) {
	srv := newRegistry(t, true, nil)
	repo := host(t, srv) + "/sites"
	if _, err := publish(t, Target{Repository: repo}); err == nil {
		t.Fatal("a registry whose certificate the system does not trust was accepted")
	}
	if _, err := publish(t, Target{Repository: repo, Auth: &Auth{CABundle: caPEM(srv)}}); err != nil {
		t.Fatalf("with the CA in the bundle: %v", err)
	}
	_, err := NewPublisher(Target{Repository: repo, Auth: &Auth{CABundle: []byte("not a certificate")}})
	if !permanent.Is(err) {
		t.Errorf("a CA bundle without certificates: err = %v, want a permanent error", err)
	}
}

func TestPublishAuthenticatesWithTheDockerConfig(t *testing.T) {
	const user, pass = "robot", "s3cret-token"
	srv := newRegistry(t, true, func(h http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if u, p, ok := r.BasicAuth(); !ok || u != user || p != pass {
				w.Header().Set("WWW-Authenticate", `Basic realm="test"`)
				w.WriteHeader(http.StatusUnauthorized)
				return
			}
			h.ServeHTTP(w, r)
		})
	})
	repo, ca := host(t, srv)+"/sites", caPEM(srv)
	encoded := base64.StdEncoding.EncodeToString([]byte(user + ":" + pass))
	for name, cfg := range map[string]string{
		"auth":              `{"auths":{"` + host(t, srv) + `":{"auth":"` + encoded + `"}}}`,
		"username/password": `{"auths":{"https://` + host(t, srv) + `/v2/":{"username":"robot","password":"s3cret-token"}}}`,
	} {
		auth := &Auth{DockerConfigJSON: []byte(cfg), CABundle: ca}
		if _, err := publish(t, Target{Repository: repo, Auth: auth}); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
	wrong := `{"auths":{"` + host(t, srv) + `":{"username":"robot","password":"wrong"}}}`
	_, err := publish(t, Target{Repository: repo, Auth: &Auth{DockerConfigJSON: []byte(wrong), CABundle: ca}})
	if !permanent.Is(err) {
		t.Errorf("refused credentials: err = %v, want a permanent error", err)
	}
	if err != nil && bytes.Contains([]byte(err.Error()), []byte("wrong")) {
		t.Errorf("the error quotes the password: %v", err)
	}
	_, err = NewPublisher(Target{Repository: repo, Auth: &Auth{DockerConfigJSON: []byte(`{"auths":` + pass)}})
	if !permanent.Is(err) || bytes.Contains([]byte(err.Error()), []byte(pass)) {
		t.Errorf("an unparsable Docker config: err = %v, want a permanent error that does not quote it", err)
	}
}

func TestPublishToAnUnreachableRegistryIsWorthRetrying(t *testing.T) {
	srv := newRegistry(t, false, nil)
	repo := host(t, srv) + "/sites"
	srv.Close()
	_, err := publish(t, Target{Repository: repo})
	if err == nil || permanent.Is(err) {
		t.Fatalf("err = %v, want an error worth retrying", err)
	}
}

func mustRef(t *testing.T, s string) name.Reference {
	t.Helper()
	r, err := name.ParseReference(s)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func mustDigest(t *testing.T, s string) name.Digest {
	t.Helper()
	d, err := name.NewDigest(s)
	if err != nil {
		t.Fatal(err)
	}
	return d
}
