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
	"os"
	"path/filepath"
	"testing"

	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/envtest"

	"github.com/siteops/siteops/test/testenv"
)

// startCluster starts a real kube-apiserver for a test of a command that talks to a cluster, with the
// namespace hub: it returns a client for the test and the file of an admin kubeconfig for the command.
func startCluster(t *testing.T) (client.Client, string) {
	t.Helper()
	g := NewWithT(t)
	env, err := testenv.Start(testenv.Options{})
	g.Expect(err).NotTo(HaveOccurred())
	t.Cleanup(func() { _ = env.Stop() })
	admin, err := env.AddUser(envtest.User{Name: "admin", Groups: []string{"system:masters"}}, nil)
	g.Expect(err).NotTo(HaveOccurred())
	kubeconfig, err := admin.KubeConfig()
	g.Expect(err).NotTo(HaveOccurred())
	kubeconfigFile := filepath.Join(t.TempDir(), "kubeconfig")
	g.Expect(os.WriteFile(kubeconfigFile, kubeconfig, 0o600)).To(Succeed())
	k8s, err := client.New(env.Config, client.Options{Scheme: env.Scheme})
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(k8s.Create(t.Context(), &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "hub"}})).To(Succeed())
	return k8s, kubeconfigFile
}
