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

// Command siteops-argocd is the Argo CD that siteops' end-to-end cluster runs: one multi-call binary with only
// the application controller, the ApplicationSet controller (it generates one Application per site folder of
// the rendered branch), the repo server and the Git askpass helper (Argo CD's ./cmd links every
// component: API server, CLI, Dex, notifications…). The role comes from the name it is called by (argv[0]) or
// from ARGOCD_BINARY_NAME, as in Argo CD's own ./cmd.
//
// It is not part of the siteops module: hack/build-bins.sh copies it into the Argo CD source tree of
// ARGOCD_VERSION as cmd/siteops-argocd and vets and builds it there. The ignore directive in go.mod keeps
// `go build ./...`, `go vet ./...`, golangci-lint and `go mod tidy` of siteops away from it, since argo-cd is
// not (and must not become) a dependency of go.mod.
package main

import (
	"fmt"
	"os"
	"path/filepath"

	appcontroller "github.com/argoproj/argo-cd/v3/cmd/argocd-application-controller/commands"
	appsetcontroller "github.com/argoproj/argo-cd/v3/cmd/argocd-applicationset-controller/commands"
	gitaskpass "github.com/argoproj/argo-cd/v3/cmd/argocd-git-ask-pass/commands"
	reposerver "github.com/argoproj/argo-cd/v3/cmd/argocd-repo-server/commands"
	"github.com/argoproj/argo-cd/v3/util/log"
	"github.com/spf13/cobra"
	"k8s.io/klog/v2"
)

func main() {
	klog.SetLogger(log.NewLogrusLogger(log.NewWithCurrentConfig()))
	name := filepath.Base(os.Args[0])
	if v := os.Getenv("ARGOCD_BINARY_NAME"); v != "" {
		name = v
	}
	var cmd *cobra.Command
	switch name {
	case "argocd-application-controller":
		cmd = appcontroller.NewCommand()
	case "argocd-applicationset-controller":
		cmd = appsetcontroller.NewCommand()
	case "argocd-repo-server":
		cmd = reposerver.NewCommand()
	case "argocd-git-ask-pass":
		cmd = gitaskpass.NewCommand()
	default:
		fmt.Fprintf(os.Stderr,
			"%s: siteops' Argo CD build has argocd-application-controller, argocd-applicationset-controller, "+
				"argocd-repo-server and argocd-git-ask-pass only\n", name)
		os.Exit(2)
	}
	if err := cmd.Execute(); err != nil {
		os.Exit(1)
	}
}
