//go:build e2e

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

package e2e

import (
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/siteops/siteops/test/testenv"
)

// kube is one cluster of the fleet, as kubectl and client-go reach it: the hub (hub) or a site (siteKube).
type kube struct{ kubeconfig string }

// hub is the hub cluster, where the manager, Argo CD and Argo Rollouts run.
func hub() kube { return kube{cluster.kubeconfig} }

// siteKube is the site cluster named site.
func siteKube(site string) kube { return kube{siteKubeconfig(site)} }

// args prefixes kubectl's arguments with the cluster's kubeconfig.
func (k kube) args(args []string) []string {
	return append([]string{"--kubeconfig", k.kubeconfig}, args...)
}

// kubectl is kubectl against k.
func (k kube) kubectl(t testing.TB, args ...string) string {
	t.Helper()
	return kubectl(t, k.args(args)...)
}

// tryIn is tryKubectlIn against k.
func (k kube) tryIn(stdin string, args ...string) (string, error) {
	return tryKubectlIn(stdin, k.args(args)...)
}

// jsonpath is jsonpath against k.
func (k kube) jsonpath(args ...string) string { return jsonpath(k.args(args)...) }

// clientset is a client-go clientset for k.
func (k kube) clientset(t testing.TB) *kubernetes.Clientset {
	t.Helper()
	cfg, err := clientcmd.BuildConfigFromFlags("", k.kubeconfig)
	if err != nil {
		t.Fatal(err)
	}
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return cs
}

// installCRDs applies siteops' CRDs to k, as `make install` does, and waits until they are established.
func (k kube) installCRDs() error {
	out, err := k.tryIn("", "apply", "--server-side", "-f", filepath.Join(testenv.RepoRoot(), "base", "crd", "bases"))
	if err != nil {
		return fmt.Errorf("installing CRDs: %w\n%s", err, out)
	}
	// kubectl wait fails at once ("accessor error: <nil>") on a CRD whose status has no conditions yet, which a
	// loaded apiserver shows for a moment after the apply: try again.
	for attempt := 1; ; attempt++ {
		out, err := k.tryIn("", "wait", "--for=condition=Established", "crd", "--all", "--timeout=60s")
		if err == nil {
			return nil
		}
		if attempt == 5 {
			return fmt.Errorf("waiting for the CRDs: %w\n%s", err, out)
		}
		time.Sleep(2 * time.Second)
	}
}
