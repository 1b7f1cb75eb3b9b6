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

// Package gitops turns a Git repository of kustomize bases and per-site overlays into a rendered branch that
// Argo CD syncs. It fetches the source with go-git, checks every kustomization a site reaches before building
// (no remote bases, no paths or symlinks leaving the checkout, no exec/container functions, no Helm), renders
// each site in process with krusty, and publishes one file per site, `<path>/manifests.yaml`, on the target
// branch in a commit whose trailers name the source commit, the sites and the siteops version.
//
// The pipeline is in stages, one package each: gitops/source (fetch into an on-disk cache, credentials, TLS,
// signature checks of source commits; the cache also pushes), gitops/guard (the hermetic checks: it reads
// only the checkout and links no network code), gitops/render (the in-process build of what the guard
// passed), gitops/provenance (each site's signed in-toto statement of how its output was made, and its
// check), gitops/publish (the rendered commit: tree, message, trailers, signature), gitops/ociartifact (each
// site's folder as an OCI artifact, its provenance as a referrer) and gitops/sitediff (the per-site comparison
// of rendered objects), over gitops/internal/tree (the checkout's files and Git trees).
// This package composes them: buildSites is the one path from a checkout to rendered bytes, which Sync and
// Checkout.RenderSites both take; pushRendered pushes the commit, fetching and rebuilding it when the target
// branch moved; publishOCI then publishes the sites whose folders have no artifact yet.
//
// A Syncer owns what a process keeps between calls (cache locks, memos, the HTTP client); the SiteSync
// controller and the siteops CLI each make one. The package has no controller-runtime imports: Sync is the
// entry point of the controller; Checkout (OpenDir, OpenRevision, Syncer.FetchCheckout) serves the CLI.
package gitops
