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

// Command image builds the siteops manager's OCI image without a container engine, with go-containerregistry:
// one layer over an empty base holding the static manager binary at /manager, /etc/passwd and /etc/group with
// the nonroot user (65532), and an empty /tmp; the config runs /manager as 65532:65532 and carries the OCI
// labels (org.opencontainers.image.revision, .version, .source, ...). Timestamps are fixed, so the same binary
// and flags give the same digest. The image is written as an OCI image layout (and optionally a tarball that
// `docker load` and `podman load` read); its digest is printed.
//
//	go run ./hack/image --binary dist/manager-linux-amd64 --version v0.2.0 --revision $(git rev-parse HEAD) \
//	    --tag ghcr.io/siteops/manager:v0.2.0 --out dist/manager-image
package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"runtime"
	"time"
)

func main() {
	if err := run(os.Args[1:], os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "image:", err)
		os.Exit(1)
	}
}

func run(args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("image", flag.ContinueOnError)
	var o options
	fs.StringVar(&o.binary, "binary", "",
		"the manager binary, linked statically (CGO_ENABLED=0) for linux/--arch (required)")
	fs.StringVar(&o.arch, "arch", runtime.GOARCH, "architecture of the binary and the image")
	fs.StringVar(&o.version, "version", "dev", "org.opencontainers.image.version")
	fs.StringVar(&o.revision, "revision", "", "org.opencontainers.image.revision: the source commit (required)")
	fs.StringVar(&o.source, "source", "https://github.com/siteops/siteops", "org.opencontainers.image.source")
	fs.StringVar(&o.tag, "tag", "ghcr.io/siteops/manager:dev", "image reference recorded in the layout and the tarball")
	created := fs.Int64("created", 0, "creation time, Unix seconds (0: the Unix epoch, for reproducible digests)")
	out := fs.String("out", "dist/manager-image", "OCI image layout folder to write (replaced)")
	tarballPath := fs.String("tarball", "", "also write a tarball (for docker load or podman load) to this file")
	digestFile := fs.String("digest-file", "", "also write the digest (sha256:...) to this file")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if o.binary == "" || o.revision == "" {
		fs.Usage()
		return fmt.Errorf("--binary and --revision are required")
	}
	o.created = time.Unix(*created, 0).UTC()
	img, err := build(o)
	if err != nil {
		return err
	}
	digest, err := writeLayout(img, *out, o.tag)
	if err != nil {
		return err
	}
	if *tarballPath != "" {
		if err := writeTarball(img, *tarballPath, o.tag); err != nil {
			return err
		}
	}
	if *digestFile != "" {
		if err := os.WriteFile(*digestFile, []byte(digest+"\n"), 0o644); err != nil {
			return fmt.Errorf("writing the digest: %w", err)
		}
	}
	_, err = fmt.Fprintf(stdout, "built %s (linux/%s, revision %s) into %s\ndigest: %s\n", o.tag, o.arch, o.revision,
		*out, digest)
	return err
}
