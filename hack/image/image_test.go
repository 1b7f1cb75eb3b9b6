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
	"archive/tar"
	"bytes"
	"errors"
	"io"
	"log"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/google/go-containerregistry/pkg/name"
	"github.com/google/go-containerregistry/pkg/registry"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/layout"
	"github.com/google/go-containerregistry/pkg/v1/remote"
	"github.com/google/go-containerregistry/pkg/v1/types"
	. "github.com/onsi/gomega"
)

// staticBinary builds a small Go program for linux/GOARCH without cgo.
func staticBinary(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	src := filepath.Join(dir, "main.go")
	if err := os.WriteFile(src, []byte("package main\n\nfunc main() { println(\"manager\") }\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(dir, "manager")
	cmd := exec.Command("go", "build", "-o", bin, src)
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0", "GOOS=linux", "GOARCH="+runtime.GOARCH, "GOFLAGS=", "GO111MODULE=off")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v: %s", err, out)
	}
	return bin
}

func TestImageLoadsIntoARegistryWithEntrypointUserAndLabels(t *testing.T) {
	g := NewWithT(t)
	bin := staticBinary(t)
	out := filepath.Join(t.TempDir(), "layout")
	digestFile := filepath.Join(t.TempDir(), "digest")
	var stdout bytes.Buffer
	err := run([]string{"--binary", bin, "--version", "v9.8.7", "--revision", "0123456789abcdef0123456789abcdef01234567",
		"--tag", "ghcr.io/siteops/manager:v9.8.7", "--out", out, "--digest-file", digestFile}, &stdout)
	g.Expect(err).NotTo(HaveOccurred())
	digest, err := os.ReadFile(digestFile)
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(stdout.String()).To(ContainSubstring("digest: " + strings.TrimSpace(string(digest)) + "\n"))

	// Load the OCI layout and push it to an in-process registry on 127.0.0.1.
	idx, err := layout.ImageIndexFromPath(out)
	g.Expect(err).NotTo(HaveOccurred())
	m, err := idx.IndexManifest()
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(m.Manifests).To(HaveLen(1))
	g.Expect(m.Manifests[0].Annotations).To(HaveKeyWithValue("org.opencontainers.image.ref.name",
		"ghcr.io/siteops/manager:v9.8.7"))
	g.Expect(m.Manifests[0].Digest.String()).To(Equal(strings.TrimSpace(string(digest))))
	img, err := idx.Image(m.Manifests[0].Digest)
	g.Expect(err).NotTo(HaveOccurred())
	reg := httptest.NewServer(registry.New(registry.Logger(log.New(io.Discard, "", 0))))
	defer reg.Close()
	ref, err := name.ParseReference(strings.TrimPrefix(reg.URL, "http://") + "/siteops/manager:v9.8.7")
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(remote.Write(ref, img)).To(Succeed())

	// Pull it back, as a cluster would.
	pulled, err := remote.Image(ref)
	g.Expect(err).NotTo(HaveOccurred())
	pulledDigest, err := pulled.Digest()
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(pulledDigest.String()).To(Equal(strings.TrimSpace(string(digest))))
	mt, err := pulled.MediaType()
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(mt).To(Equal(types.OCIManifestSchema1))
	cf, err := pulled.ConfigFile()
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(cf.OS).To(Equal("linux"))
	g.Expect(cf.Architecture).To(Equal(runtime.GOARCH))
	g.Expect(cf.Config.Entrypoint).To(Equal([]string{"/manager"}))
	g.Expect(cf.Config.User).To(Equal("65532:65532"))
	g.Expect(cf.Config.Labels).To(HaveKeyWithValue("org.opencontainers.image.revision",
		"0123456789abcdef0123456789abcdef01234567"))
	g.Expect(cf.Config.Labels).To(HaveKeyWithValue("org.opencontainers.image.version", "v9.8.7"))
	g.Expect(cf.Config.Labels).To(HaveKeyWithValue("org.opencontainers.image.source",
		"https://github.com/siteops/siteops"))
	manifest, err := pulled.Manifest()
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(manifest.Annotations).To(HaveKeyWithValue("org.opencontainers.image.revision",
		"0123456789abcdef0123456789abcdef01234567"))

	// The one layer holds the binary, executable, and the nonroot user.
	files := layerFiles(t, pulled)
	want, err := os.ReadFile(bin)
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(files).To(HaveKey("manager"))
	g.Expect(files["manager"].mode & 0o111).NotTo(BeZero())
	g.Expect(files["manager"].content).To(Equal(want))
	g.Expect(string(files["etc/passwd"].content)).To(ContainSubstring("nonroot:x:65532:65532:"))
	g.Expect(files["tmp/"].mode & 0o1777).To(Equal(int64(0o1777)))
}

func TestImageIsReproducible(t *testing.T) {
	g := NewWithT(t)
	bin := staticBinary(t)
	digests := map[string]bool{}
	for range 2 {
		var stdout bytes.Buffer
		out := filepath.Join(t.TempDir(), "layout")
		g.Expect(run([]string{"--binary", bin, "--revision", "abc", "--out", out}, &stdout)).To(Succeed())
		_, d, _ := strings.Cut(stdout.String(), "digest: ")
		digests[strings.TrimSpace(d)] = true
	}
	g.Expect(digests).To(HaveLen(1), "the same binary and flags give the same digest")
}

func TestImageRefusesABinaryThatCannotRunOnAnEmptyBase(t *testing.T) {
	g := NewWithT(t)
	notELF := filepath.Join(t.TempDir(), "script")
	g.Expect(os.WriteFile(notELF, []byte("#!/bin/sh\necho hi\n"), 0o755)).To(Succeed())
	err := run([]string{"--binary", notELF, "--revision", "abc", "--out", t.TempDir()}, io.Discard)
	g.Expect(err).To(MatchError(ContainSubstring("not an ELF executable")))

	if runtime.GOOS == "linux" {
		dynamic, err := exec.LookPath("git") // Debian's git links libc dynamically
		g.Expect(err).NotTo(HaveOccurred())
		err = run([]string{"--binary", dynamic, "--revision", "abc", "--out", t.TempDir()}, io.Discard)
		g.Expect(err).To(MatchError(ContainSubstring("linked dynamically: build it with CGO_ENABLED=0")))
	}
	err = run([]string{"--binary", staticBinary(t), "--out", t.TempDir()}, io.Discard)
	g.Expect(err).To(MatchError(ContainSubstring("--revision are required")))
}

type layerFile struct {
	mode    int64
	content []byte
}

func layerFiles(t *testing.T, img v1.Image) map[string]layerFile {
	t.Helper()
	layers, err := img.Layers()
	if err != nil || len(layers) != 1 {
		t.Fatalf("want one layer, got %d (%v)", len(layers), err)
	}
	rc, err := layers[0].Uncompressed()
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = rc.Close() }()
	out := map[string]layerFile{}
	tr := tar.NewReader(rc)
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
		out[h.Name] = layerFile{mode: h.Mode, content: b}
	}
}
