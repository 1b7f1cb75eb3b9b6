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

// Package testenv starts a real kube-apiserver and etcd (controller-runtime envtest) with siteops' CRDs and,
// optionally, its admission webhooks, for the controller and API tests. It is started once per test package,
// from TestMain.
package testenv

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	goruntime "runtime"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/envtest"

	"github.com/siteops/siteops/apis"
)

// Options selects what the test control plane serves besides the CRDs.
type Options struct {
	// Webhooks installs base/webhook's admission configuration pointing at a local webhook server; the test
	// must then start a manager with WebhookServerOptions() so the apiserver can reach it.
	Webhooks bool
	// CRDPaths are more CRD files or folders to install, such as ArgoRolloutsCRDs().
	CRDPaths []string
}

// Env is a running test control plane.
type Env struct {
	*envtest.Environment
	// Config reaches the apiserver as a cluster admin.
	Config *rest.Config
	// Scheme knows the built-in types and every siteops API.
	Scheme *runtime.Scheme
}

// RepoRoot returns the root of the siteops checkout, found from this source file.
func RepoRoot() string {
	_, file, _, _ := goruntime.Caller(0)
	return filepath.Clean(filepath.Join(filepath.Dir(file), "..", ".."))
}

// Scheme returns a scheme with the built-in types and every siteops API registered.
func Scheme() (*runtime.Scheme, error) { return apis.NewScheme() }

// Start starts etcd and kube-apiserver and installs the CRDs from base/crd/bases (and webhooks from
// base/webhook when asked). KUBEBUILDER_ASSETS names the binaries; `make test` sets it, and when it is unset
// Start asks hack/envtest.sh, which builds them on first use.
func Start(opts Options) (*Env, error) {
	root := RepoRoot()
	assets, err := assetsDir(root)
	if err != nil {
		return nil, err
	}
	scheme, err := Scheme()
	if err != nil {
		return nil, err
	}
	env := &envtest.Environment{
		BinaryAssetsDirectory: assets,
		CRDDirectoryPaths:     append([]string{filepath.Join(root, "base", "crd", "bases")}, opts.CRDPaths...),
		ErrorIfCRDPathMissing: true,
		Scheme:                scheme,
	}
	// A 2-core machine running several test packages at once starts the apiserver slowly; envtest's default
	// 20 s fails there for no fault of the code under test. KUBEBUILDER_CONTROLPLANE_START_TIMEOUT still wins.
	if os.Getenv("KUBEBUILDER_CONTROLPLANE_START_TIMEOUT") == "" {
		env.ControlPlaneStartTimeout = 3 * time.Minute
	}
	// Likewise for the CRDs to be served (envtest waits 10 s by default), more so with Argo Rollouts' large ones.
	env.CRDInstallOptions.MaxTime = 2 * time.Minute
	if opts.Webhooks {
		env.WebhookInstallOptions = envtest.WebhookInstallOptions{
			Paths:            []string{filepath.Join(root, "base", "webhook", "manifests.yaml")},
			LocalServingHost: "127.0.0.1",
		}
	}
	cfg, err := env.Start()
	if err != nil {
		return nil, fmt.Errorf("starting envtest control plane from %s: %w", assets, err)
	}
	return &Env{Environment: env, Config: cfg, Scheme: scheme}, nil
}

// assetsDir finds etcd and kube-apiserver: KUBEBUILDER_ASSETS, else hack/envtest.sh with bin/setup-envtest.
func assetsDir(root string) (string, error) {
	if dir := os.Getenv("KUBEBUILDER_ASSETS"); dir != "" {
		return dir, nil
	}
	matches, _ := filepath.Glob(filepath.Join(root, "bin", "setup-envtest-*"))
	if len(matches) == 0 {
		return "",
			fmt.Errorf("KUBEBUILDER_ASSETS is unset and bin/setup-envtest-* is missing: run the tests with `make test`")
	}
	out, err := exec.Command(filepath.Join(root, "hack", "envtest.sh"), matches[0]).Output()
	if err != nil {
		return "", fmt.Errorf("locating envtest binaries with hack/envtest.sh: %w", err)
	}
	return strings.TrimSpace(string(out)), nil
}

// PinnedDir is the folder where hack/build-bins.sh keeps component ("kustomize", "helm", "kube", "argocd"…) at
// the version hack/versions.sh pins, built or not.
func PinnedDir(component string) (string, error) {
	out, err := exec.Command(filepath.Join(RepoRoot(), "hack", "build-bins.sh"), "--path", component).Output()
	if err != nil {
		return "", fmt.Errorf("hack/build-bins.sh --path %s: %w", component, err)
	}
	return strings.TrimSpace(string(out)), nil
}

// PinnedBinary is binary name of component as hack/build-bins.sh builds it, or an error saying what to build
// when it is not there.
func PinnedBinary(component, name string) (string, error) {
	dir, err := PinnedDir(component)
	if err != nil {
		return "", err
	}
	bin := filepath.Join(dir, name)
	if _, err := os.Stat(bin); err != nil {
		return "", fmt.Errorf("%s is not built (hack/build-bins.sh %s builds it): %w", bin, component, err)
	}
	return bin, nil
}

// ArgoRolloutsCRDs returns the CRD files of Argo Rollouts' Rollout and AnalysisRun, read from the module cache
// copy of github.com/argoproj/argo-rollouts that go.mod requires (nothing is downloaded or committed).
func ArgoRolloutsCRDs() ([]string, error) {
	return argoRolloutsCRDs("rollout-crd.yaml", "analysis-run-crd.yaml")
}

// ArgoRolloutsAnalysisCRDs returns the CRD files of Argo Rollouts' AnalysisRun, AnalysisTemplate and
// ClusterAnalysisTemplate, read as ArgoRolloutsCRDs reads its files.
func ArgoRolloutsAnalysisCRDs() ([]string, error) {
	return argoRolloutsCRDs("analysis-run-crd.yaml", "analysis-template-crd.yaml", "cluster-analysis-template-crd.yaml")
}

// argoRolloutsCRDs are the paths of the named files of the argo-rollouts module's manifests/crds.
func argoRolloutsCRDs(files ...string) ([]string, error) {
	cmd := exec.Command("go", "list", "-m", "-f", "{{.Dir}}", "github.com/argoproj/argo-rollouts")
	cmd.Dir = RepoRoot()
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("locating the argo-rollouts module with go list -m: %w", err)
	}
	dir := filepath.Join(strings.TrimSpace(string(out)), "manifests", "crds")
	paths := make([]string, len(files))
	for i, f := range files {
		paths[i] = filepath.Join(dir, f)
	}
	return paths, nil
}
