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

package bench

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/siteops/siteops/test/gitserver"
)

// mttpRepo is the source repository's name on the Git server of both sides.
const mttpRepo = "fleet"

// mttpApp is app i's name: its overlay folder, its namespace, its siteops site and its Flux Kustomization.
func mttpApp(i int) string { return fmt.Sprintf("app-%04d", i) }

// mttpBase is the app of fluxcd/flux-benchmark's Kustomization benchmark, four objects: a Deployment scaled
// to zero, its ServiceAccount, a Service and an Ingress (written here, not copied).
var mttpBase = map[string]string{
	"base/kustomization.yaml":  "resources:\n- serviceaccount.yaml\n- deployment.yaml\n- service.yaml\n- ingress.yaml\n",
	"base/serviceaccount.yaml": "apiVersion: v1\nkind: ServiceAccount\nmetadata:\n  name: web\n",
	"base/deployment.yaml": `apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
spec:
  replicas: 0
  selector:
    matchLabels: {app: web}
  template:
    metadata:
      labels: {app: web}
    spec:
      serviceAccountName: web
      containers:
      - name: web
        image: registry.example/web:1
        ports:
        - {name: http, containerPort: 9898}
`,
	"base/service.yaml": `apiVersion: v1
kind: Service
metadata:
  name: web
spec:
  selector: {app: web}
  ports:
  - {name: http, port: 80, targetPort: http}
`,
	"base/ingress.yaml": `apiVersion: networking.k8s.io/v1
kind: Ingress
metadata:
  name: web
spec:
  rules:
  - host: web.example
    http:
      paths:
      - path: /
        pathType: Prefix
        backend:
          service:
            name: web
            port: {name: http}
`,
}

// mttpSource is the source repository of n apps: base/ and one overlay per app that puts the base into the
// app's namespace, so that siteops renders one site folder per app and Flux builds one Kustomization per app
// from the same files.
func mttpSource(n int) map[string]string {
	files := map[string]string{}
	for k, v := range mttpBase {
		files[k] = v
	}
	for i := range n {
		files["overlays/"+mttpApp(i)+"/kustomization.yaml"] = "namespace: " + mttpApp(i) + "\nresources:\n- ../../base\n"
	}
	return files
}

// mttpGit starts the side's Git server with the repository holding a README only and returns the server and a
// clone with the n apps committed, not yet pushed: the push starts the clock.
func mttpGit(tb testing.TB, n int) (*gitserver.Server, *gitserver.Worktree) {
	tb.Helper()
	srv := gitserver.Start(tb, gitserver.Options{})
	srv.NewRepo(tb, mttpRepo, map[string]string{"README.md": "apps to come\n"})
	wt := srv.Clone(tb, mttpRepo)
	for path, content := range mttpSource(n) {
		wt.Write(path, content)
	}
	wt.Commit(fmt.Sprintf("%d apps", n))
	return srv, wt
}

// createAppNamespaces creates the apps' namespaces and the others named, untimed, on both sides alike.
func createAppNamespaces(tb testing.TB, c client.Client, n int, others ...string) {
	tb.Helper()
	names := append([]string(nil), others...)
	for i := range n {
		names = append(names, mttpApp(i))
	}
	createAll(tb, c, len(names), func(i int) client.Object {
		return &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: names[i]}}
	})
}

// countAppObjects counts, untimed after a side's run, the apps' four objects the cluster holds; each side
// must hold 4 per app.
func countAppObjects(tb testing.TB, c client.Client) int {
	tb.Helper()
	total := 0
	for _, kind := range []string{"ServiceAccount", "Service", "apps/v1/Deployment", "networking.k8s.io/v1/Ingress"} {
		group, version := "", "v1"
		if parts := strings.Split(kind, "/"); len(parts) == 3 {
			group, version, kind = parts[0], parts[1], parts[2]
		}
		list := &unstructured.UnstructuredList{}
		list.SetAPIVersion(strings.TrimPrefix(group+"/"+version, "/"))
		list.SetKind(kind + "List")
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		err := c.List(ctx, list)
		cancel()
		mustDo(tb, err)
		for _, o := range list.Items {
			if o.GetName() == "web" && strings.HasPrefix(o.GetNamespace(), "app-") {
				total++
			}
		}
	}
	return total
}
