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
	"debug/elf"
	"fmt"
	"io"
	"os"
	"time"

	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/empty"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/tarball"
	"github.com/google/go-containerregistry/pkg/v1/types"
)

// Who the manager runs as: the "nonroot" user of distroless images, which base/manager's securityContext
// also names.
const (
	nonrootUID = 65532
	entrypoint = "/manager"
)

// options describe the image to build.
type options struct {
	binary, arch, version, revision, source, tag string
	created                                      time.Time
}

// labels are the OCI annotation keys the image config carries (and the manifest, as annotations).
func (o options) labels() map[string]string {
	return map[string]string{
		"org.opencontainers.image.title":       "siteops manager",
		"org.opencontainers.image.description": "renders kustomize site overlays to a rendered branch for Argo CD",
		"org.opencontainers.image.source":      o.source,
		"org.opencontainers.image.revision":    o.revision,
		"org.opencontainers.image.version":     o.version,
		"org.opencontainers.image.licenses":    "Apache-2.0",
		"org.opencontainers.image.created":     o.created.Format(time.RFC3339),
	}
}

// build makes the image: an empty base, one layer, the config.
func build(o options) (v1.Image, error) {
	bin, err := os.ReadFile(o.binary)
	if err != nil {
		return nil, fmt.Errorf("reading the binary: %w", err)
	}
	if err := checkStatic(bin, o.arch); err != nil {
		return nil, fmt.Errorf("%s: %w", o.binary, err)
	}
	layerTar, err := rootfs(bin, o.created)
	if err != nil {
		return nil, err
	}
	layer, err := tarball.LayerFromOpener(func() (io.ReadCloser, error) {
		return io.NopCloser(bytes.NewReader(layerTar)), nil
	}, tarball.WithMediaType(types.OCILayer))
	if err != nil {
		return nil, fmt.Errorf("making the layer: %w", err)
	}
	img := mutate.MediaType(empty.Image, types.OCIManifestSchema1)
	img = mutate.ConfigMediaType(img, types.OCIConfigJSON)
	img, err = mutate.Append(img, mutate.Addendum{Layer: layer, History: v1.History{
		Created: v1.Time{Time: o.created}, CreatedBy: "hack/image: /manager, /etc/passwd, /etc/group, /tmp",
	}})
	if err != nil {
		return nil, fmt.Errorf("adding the layer: %w", err)
	}
	cf, err := img.ConfigFile()
	if err != nil {
		return nil, fmt.Errorf("reading the config: %w", err)
	}
	cf = cf.DeepCopy()
	cf.OS, cf.Architecture, cf.Created = "linux", o.arch, v1.Time{Time: o.created}
	cf.Config.Entrypoint = []string{entrypoint}
	cf.Config.User = fmt.Sprintf("%d:%d", nonrootUID, nonrootUID)
	cf.Config.WorkingDir = "/"
	cf.Config.Env = []string{"PATH=/", "HOME=/tmp"}
	cf.Config.Labels = o.labels()
	if img, err = mutate.ConfigFile(img, cf); err != nil {
		return nil, fmt.Errorf("writing the config: %w", err)
	}
	annotated, ok := mutate.Annotations(img, o.labels()).(v1.Image)
	if !ok {
		return nil, fmt.Errorf("annotating the manifest: not an image")
	}
	return annotated, nil
}

// checkStatic refuses a binary that is not a Linux ELF executable for arch or that needs a dynamic loader
// (the image has no libc).
func checkStatic(bin []byte, arch string) error {
	f, err := elf.NewFile(bytes.NewReader(bin))
	if err != nil {
		return fmt.Errorf("not an ELF executable: %w", err)
	}
	defer func() { _ = f.Close() }()
	want := map[string]elf.Machine{"amd64": elf.EM_X86_64, "arm64": elf.EM_AARCH64}[arch]
	if want == 0 || f.Machine != want {
		return fmt.Errorf("built for %s, not linux/%s", f.Machine, arch)
	}
	for _, p := range f.Progs {
		if p.Type == elf.PT_INTERP {
			return fmt.Errorf("linked dynamically: build it with CGO_ENABLED=0")
		}
	}
	return nil
}

// rootfs is the layer's tar: folders, the users, and the binary, owned by root, with fixed times.
func rootfs(bin []byte, mtime time.Time) ([]byte, error) {
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	passwd := fmt.Sprintf("root:x:0:0:root:/root:/sbin/nologin\nnonroot:x:%d:%d:nonroot:/home/nonroot:/sbin/nologin\n",
		nonrootUID, nonrootUID)
	group := fmt.Sprintf("root:x:0:\nnonroot:x:%d:\n", nonrootUID)
	entries := []struct {
		name    string
		mode    int64
		dir     bool
		content []byte
	}{
		{name: "etc/", mode: 0o755, dir: true},
		{name: "etc/group", mode: 0o644, content: []byte(group)},
		{name: "etc/passwd", mode: 0o644, content: []byte(passwd)},
		{name: "manager", mode: 0o755, content: bin},
		{name: "tmp/", mode: 0o1777, dir: true},
	}
	for _, e := range entries {
		h := &tar.Header{Name: e.name, Mode: e.mode, ModTime: mtime, Format: tar.FormatPAX, Typeflag: tar.TypeReg,
			Size: int64(len(e.content))}
		if e.dir {
			h.Typeflag, h.Size = tar.TypeDir, 0
		}
		if err := tw.WriteHeader(h); err != nil {
			return nil, fmt.Errorf("writing %s to the layer: %w", e.name, err)
		}
		if _, err := tw.Write(e.content); err != nil {
			return nil, fmt.Errorf("writing %s to the layer: %w", e.name, err)
		}
	}
	if err := tw.Close(); err != nil {
		return nil, fmt.Errorf("closing the layer: %w", err)
	}
	return buf.Bytes(), nil
}
