// Package gitops turns a Git repository of kustomize bases and per-site overlays into a rendered branch that
// Argo CD syncs. It fetches the source with go-git, checks every kustomization a site reaches before building
// (no remote bases, no paths or symlinks leaving the checkout, no exec/container functions, no Helm), renders
// each site in process with krusty, and publishes one file per site, `<path>/manifests.yaml`, on the target
// branch in a commit whose trailers name the source commit, the sites and the siteops version.
//
// The package has no controller-runtime imports: the SiteSync controller and the siteops CLI share it. Sync is
// the entry point of the controller; Checkout (OpenDir, FetchSource) serves the CLI.
package gitops
