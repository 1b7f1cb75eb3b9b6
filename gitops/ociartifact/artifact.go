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

// Package ociartifact publishes a site's rendered folder as an OCI artifact that Argo CD's OCI source (3.1 and
// later) syncs: one tar+gzip layer of the folder's files at the artifact's root, tagged
// `<site>-<rendered commit short>` and `<site>`, with the site's signed provenance (a DSSE envelope of an
// in-toto statement) pushed beside it as an OCI 1.1 referrer whose subject is the site's artifact.
package ociartifact

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"encoding/json"
	"fmt"
	"maps"
	"slices"

	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/static"
	"github.com/google/go-containerregistry/pkg/v1/types"
)

// Media types of what Publish pushes.
const (
	// ArtifactType is the artifactType of a site's artifact.
	ArtifactType = "application/vnd.siteops.site.v1"
	// LayerMediaType is the media type of the site's one layer, which Argo CD unpacks.
	LayerMediaType = types.OCILayer
	// ProvenanceArtifactType is the artifactType of the referrer holding the site's provenance.
	ProvenanceArtifactType = "application/vnd.in-toto+json"
	// ProvenanceMediaType is the media type of the referrer's one layer, the DSSE envelope.
	ProvenanceMediaType = "application/vnd.dsse.envelope.v1+json"
	// emptyMediaType is the config of the site's artifact: OCI 1.1's empty descriptor. The provenance's config
	// is `{}` too, of media type ProvenanceArtifactType: registries that list referrers by their config's media
	// type (not their artifactType) then still tell it apart.
	emptyMediaType = "application/vnd.oci.empty.v1+json"
)

// Annotations on the site's artifact.
const (
	AnnotationSite     = "dev.siteops.site"
	AnnotationCommit   = "dev.siteops.rendered-commit"
	annotationRevision = "org.opencontainers.image.revision"
)

// emptyConfig is the content of OCI 1.1's empty descriptor.
const emptyConfig = "{}"

// manifest is an OCI image manifest; Put sends it as is.
type manifest struct {
	SchemaVersion int               `json:"schemaVersion"`
	MediaType     types.MediaType   `json:"mediaType"`
	ArtifactType  string            `json:"artifactType,omitempty"`
	Config        v1.Descriptor     `json:"config"`
	Layers        []v1.Descriptor   `json:"layers"`
	Subject       *v1.Descriptor    `json:"subject,omitempty"`
	Annotations   map[string]string `json:"annotations,omitempty"`
}

// rawManifest is a serialized manifest that remote.Put can push.
type rawManifest []byte

func (m rawManifest) RawManifest() ([]byte, error)        { return m, nil }
func (m rawManifest) MediaType() (types.MediaType, error) { return types.OCIManifestSchema1, nil }

// descriptor is m's descriptor, for a referrer's subject.
func (m rawManifest) descriptor() (v1.Descriptor, error) {
	h, size, err := v1.SHA256(bytes.NewReader(m))
	return v1.Descriptor{MediaType: types.OCIManifestSchema1, Digest: h, Size: size}, err
}

// newManifest serializes a manifest of one layer over the empty config `{}` of media type configType.
func newManifest(artifactType, configType string, layer v1.Layer, subject *v1.Descriptor,
	ann map[string]string) (rawManifest, error) {
	ld, err := descriptorOf(layer)
	if err != nil {
		return nil, err
	}
	cd, err := descriptorOf(static.NewLayer([]byte(emptyConfig), types.MediaType(configType)))
	if err != nil {
		return nil, err
	}
	b, err := json.Marshal(manifest{SchemaVersion: 2, MediaType: types.OCIManifestSchema1, ArtifactType: artifactType,
		Config: cd, Layers: []v1.Descriptor{ld}, Subject: subject, Annotations: ann})
	return b, err
}

func descriptorOf(l v1.Layer) (v1.Descriptor, error) {
	d, err := l.Digest()
	if err != nil {
		return v1.Descriptor{}, err
	}
	size, err := l.Size()
	if err != nil {
		return v1.Descriptor{}, err
	}
	mt, err := l.MediaType()
	return v1.Descriptor{MediaType: mt, Digest: d, Size: size}, err
}

// folderLayer is files (slash paths relative to the folder) as a tar+gzip layer. The bytes depend only on the
// files: entries sorted by name, no times, owners or modes beyond 0644 and 0755 for folders.
func folderLayer(files map[string][]byte) (v1.Layer, error) {
	var buf bytes.Buffer
	zw, err := gzip.NewWriterLevel(&buf, gzip.BestCompression)
	if err != nil {
		return nil, err
	}
	tw := tar.NewWriter(zw)
	dirs := map[string]bool{}
	for _, name := range slices.Sorted(maps.Keys(files)) {
		for _, d := range parents(name) {
			if dirs[d] {
				continue
			}
			dirs[d] = true
			if err := tw.WriteHeader(&tar.Header{Typeflag: tar.TypeDir, Name: d + "/", Mode: 0o755,
				Format: tar.FormatPAX}); err != nil {
				return nil, err
			}
		}
		b := files[name]
		if err := tw.WriteHeader(&tar.Header{Typeflag: tar.TypeReg, Name: name, Mode: 0o644, Size: int64(len(b)),
			Format: tar.FormatPAX}); err != nil {
			return nil, err
		}
		if _, err := tw.Write(b); err != nil {
			return nil, err
		}
	}
	if err := tw.Close(); err != nil {
		return nil, fmt.Errorf("writing the site's archive: %w", err)
	}
	if err := zw.Close(); err != nil {
		return nil, fmt.Errorf("compressing the site's archive: %w", err)
	}
	return static.NewLayer(buf.Bytes(), LayerMediaType), nil
}

// parents are the folders above the slash path p, outermost first.
func parents(p string) []string {
	var out []string
	for i := 0; i < len(p); i++ {
		if p[i] == '/' {
			out = append(out, p[:i])
		}
	}
	return out
}
