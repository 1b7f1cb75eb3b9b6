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

// Command siteops renders and inspects a siteops GitOps repository from the command line: what each site
// renders to (one site to stdout, every site to files), what a push would change on the rendered branch, which
// sites a change affects, whether a site's folder is the output siteops attested, the state of the SiteSyncs
// (as tables, or live in a web dashboard) and of the manager's blue/green Rollout, and each SiteSync's
// delivery ledger (the four DORA metrics). It shares package gitops with the SiteSync controller, so it
// renders exactly what the controller publishes.
//
// Usage (the same lines as `siteops help`; TestPackageDocShowsUsage keeps them in step):
//
//	siteops render [--repo DIR|URL] [--ref REF] [--site S] [--out DIR]
//	siteops render --dir DIR [--image name=newName:tag]...
//	siteops diff --site S [--repo DIR] [--target-url URL] [--branch B]
//	siteops diff --base REV [--head REV] [--repo DIR] [--format text|markdown] [--exit-code]
//	siteops render|diff ... [--validation MODE] [--kubernetes-version [SITE=]V] [--crds PATH] [--policy PATH]
//	siteops sites [--repo DIR] [--since REV]
//	siteops verify SITE --key FILE [--commit C] [--repo URL] [--branch B]
//	siteops verify SITE --sitesync NAME [-n NAMESPACE] [--kubeconfig FILE] [--commit C]
//	siteops status [--kubeconfig FILE] [-n NAMESPACE | -A] [NAME]
//	siteops ledger [--kubeconfig FILE] [-n NAMESPACE | -A] [--window 30d] [-o table|json] [NAME]
//	siteops rollout pause|resume [--kubeconfig FILE] [-n NAMESPACE] [--reason TEXT] NAME
//	siteops rollout history [--kubeconfig FILE] [-n NAMESPACE] [-o table|json] [NAME]
//	siteops dashboard [--addr 127.0.0.1:PORT] [--kubeconfig FILE] [-n NAMESPACE | -A] [--target-url URL]
//	siteops version
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	"github.com/siteops/siteops/gitops"
)

// Exit codes.
const (
	exitOK      = 0
	exitFailed  = 1 // a site failed, or the command could not do its work
	exitUsage   = 2
	usageHeader = `siteops renders kustomize site overlays the way the SiteSync controller does.

Usage:
  siteops render [--repo DIR|URL] [--ref REF] [--site S] [--out DIR]
  siteops render --dir DIR [--image name=newName:tag]...
  siteops diff --site S [--repo DIR] [--target-url URL] [--branch B]
  siteops diff --base REV [--head REV] [--repo DIR] [--format text|markdown] [--exit-code]
  siteops render|diff ... [--validation MODE] [--kubernetes-version [SITE=]V] [--crds PATH] [--policy PATH]
  siteops sites [--repo DIR] [--since REV]
  siteops verify SITE --key FILE [--commit C] [--repo URL] [--branch B]
  siteops verify SITE --sitesync NAME [-n NAMESPACE] [--kubeconfig FILE] [--commit C]
  siteops status [--kubeconfig FILE] [-n NAMESPACE | -A] [NAME]
  siteops ledger [--kubeconfig FILE] [-n NAMESPACE | -A] [--window 30d] [-o table|json] [NAME]
  siteops rollout pause|resume [--kubeconfig FILE] [-n NAMESPACE] [--reason TEXT] NAME
  siteops rollout history [--kubeconfig FILE] [-n NAMESPACE] [-o table|json] [NAME]
  siteops dashboard [--addr 127.0.0.1:PORT] [--kubeconfig FILE] [-n NAMESPACE | -A] [--target-url URL]
  siteops version

Run "siteops <command> -h" for the flags of a command.
`
)

// errUsage marks a command-line mistake (exit code 2) whose message is already printed.
var errUsage = errors.New("usage")

// usageError is a command-line mistake (exit code 2) whose message run prints.
type usageError struct{ msg string }

func (e usageError) Error() string { return e.msg }

// Is makes a usageError an errUsage.
func (e usageError) Is(target error) bool { return target == errUsage }

func main() {
	setLogger(os.Stderr)
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// run executes one command line and returns the exit code.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		_, _ = fmt.Fprint(stderr, usageHeader)
		return exitUsage
	}
	var err error
	// The syncer owns the fetch caches' locks and the Git HTTP client for this command.
	sy := gitops.NewSyncer(gitops.SyncerOptions{})
	switch args[0] {
	case "render":
		err = runRender(ctx, sy, args[1:], stdout, stderr)
	case "diff":
		err = runDiff(ctx, sy, args[1:], stdout, stderr)
	case "verify":
		err = runVerify(ctx, sy, args[1:], stdout, stderr)
	case "sites":
		err = runSites(args[1:], stdout, stderr)
	case "status":
		err = runStatus(ctx, args[1:], stdout, stderr)
	case "rollout":
		err = runRollout(ctx, args[1:], stdout, stderr)
	case "ledger":
		err = runLedger(ctx, sy, args[1:], stdout, stderr)
	case "dashboard":
		err = runDashboard(ctx, sy, args[1:], stdout, stderr)
	case "version":
		err = runVersion(stdout)
	case "help", "-h", "--help":
		_, _ = fmt.Fprint(stdout, usageHeader)
		return exitOK
	default:
		_, _ = fmt.Fprintf(stderr, "siteops: unknown command %q\n\n%s", args[0], usageHeader)
		return exitUsage
	}
	switch {
	case err == nil:
		return exitOK
	case errors.Is(err, flag.ErrHelp): // the command's usage is printed
		return exitOK
	case errors.Is(err, errUsage):
		if ue := (usageError{}); errors.As(err, &ue) { // a bare errUsage was printed where it was found
			_, _ = fmt.Fprintf(stderr, "siteops %s: %v\n", args[0], ue)
		}
		return exitUsage
	case errors.Is(err, errSitesFailed), errors.Is(err, errChanges):
		return exitFailed
	default:
		_, _ = fmt.Fprintf(stderr, "siteops %s: %v\n", args[0], err)
		return exitFailed
	}
}
