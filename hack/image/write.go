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
	"fmt"
	"os"

	"github.com/google/go-containerregistry/pkg/name"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/empty"
	"github.com/google/go-containerregistry/pkg/v1/layout"
	"github.com/google/go-containerregistry/pkg/v1/tarball"
)

// writeLayout replaces dir with an OCI image layout holding img (tagged tag in its index) and returns the
// image's digest.
func writeLayout(img v1.Image, dir, tag string) (string, error) {
	if err := os.RemoveAll(dir); err != nil {
		return "", fmt.Errorf("clearing %s: %w", dir, err)
	}
	p, err := layout.Write(dir, empty.Index)
	if err != nil {
		return "", fmt.Errorf("creating the OCI layout %s: %w", dir, err)
	}
	if err := p.AppendImage(img, layout.WithAnnotations(map[string]string{
		"org.opencontainers.image.ref.name": tag,
	})); err != nil {
		return "", fmt.Errorf("writing the image to %s: %w", dir, err)
	}
	d, err := img.Digest()
	if err != nil {
		return "", fmt.Errorf("computing the digest: %w", err)
	}
	return d.String(), nil
}

// writeTarball writes img as a `docker load` tarball tagged tag.
func writeTarball(img v1.Image, path, tag string) error {
	ref, err := name.NewTag(tag)
	if err != nil {
		return fmt.Errorf("--tag %q: %w", tag, err)
	}
	if err := tarball.WriteToFile(path, ref, img); err != nil {
		return fmt.Errorf("writing the tarball %s: %w", path, err)
	}
	return nil
}
