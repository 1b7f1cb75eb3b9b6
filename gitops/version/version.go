// Package version holds the siteops version of this build. The linker sets it (make build: -X
// github.com/siteops/siteops/gitops/version.Version=...); the manager and the CLI print it and every rendered
// commit carries it in its Siteops-Version trailer.
package version

// Version is the siteops version of this build; "dev" when built without the Makefile's ldflags.
var Version = "dev"
