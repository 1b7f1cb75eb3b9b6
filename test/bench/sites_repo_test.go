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
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// repoShape sizes a generated source repository.
type repoShape struct {
	Sites     int // overlays/site-NNN
	Resources int // objects in the shared base
}

// Sizes of the benchmarks (issue 7) and of their smoke tests.
var (
	benchShape = repoShape{Sites: 100, Resources: 20}
	smokeShape = repoShape{Sites: 5, Resources: 4}
)

// Environment knobs of the benchmarks (defaults in brackets).
const (
	envSites     = "SITEOPS_BENCH_SITES"     // sites of the generated repository [100]
	envResources = "SITEOPS_BENCH_RESOURCES" // objects in its base [20]
	envRounds    = "SITEOPS_BENCH_ROUNDS"    // measurements of each side per benchmark op (P2, P3) [3]
	envPushes    = "SITEOPS_BENCH_PUSHES"    // pushes per benchmark op (P4) [20]
)

// envInt reads a positive integer knob, def when unset; a bad value fails the benchmark.
func envInt(tb testing.TB, name string, def int) int {
	tb.Helper()
	v := os.Getenv(name)
	if v == "" {
		return def
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 1 {
		tb.Fatalf("%s=%q: want a positive integer", name, v)
	}
	return n
}

// envSizes reads a knob of comma-separated positive integers (sizes to measure), [def] when unset; a bad value
// fails the benchmark.
func envSizes(tb testing.TB, name string, def int) []int {
	tb.Helper()
	v := os.Getenv(name)
	if v == "" {
		return []int{def}
	}
	var sizes []int
	for _, f := range strings.Split(v, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n < 1 {
			tb.Fatalf("%s=%q: want comma-separated positive integers", name, v)
		}
		sizes = append(sizes, n)
	}
	return sizes
}

// envCount reads a knob that may be 0 (0 skips what it counts), def when unset; a negative or non-integer
// value fails the benchmark.
func envCount(tb testing.TB, name string, def int) int {
	tb.Helper()
	v := os.Getenv(name)
	if v == "" {
		return def
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 0 {
		tb.Fatalf("%s=%q: want 0 or a positive integer", name, v)
	}
	return n
}

// benchShapeFromEnv is benchShape with the knobs applied.
func benchShapeFromEnv(tb testing.TB) repoShape {
	return repoShape{Sites: envInt(tb, envSites, benchShape.Sites),
		Resources: envInt(tb, envResources, benchShape.Resources)}
}

// siteName is the folder of site i under overlays/.
func siteName(i int) string { return fmt.Sprintf("site-%03d", i) }

// siteNames lists the sites of s in order.
func (s repoShape) siteNames() []string {
	names := make([]string, s.Sites)
	for i := range names {
		names[i] = siteName(i)
	}
	return names
}

// files is the repository: base/ with s.Resources objects (per app: Deployment, Service, ConfigMap,
// ServiceAccount) and, per site, an overlay with a namespace, a site label, a strategic-merge patch in
// site-values.yaml, an image override and a generated ConfigMap.
func (s repoShape) files() map[string]string {
	files := map[string]string{"README.md": "# generated benchmark repository\n"}
	var resources []string
	for k := range s.Resources {
		name := fmt.Sprintf("app-%d", k/4)
		kind := []string{"deployment", "service", "configmap", "serviceaccount"}[k%4]
		file := fmt.Sprintf("%s-%s.yaml", name, kind)
		files["base/"+file] = baseObject(kind, name)
		resources = append(resources, file)
	}
	files["base/kustomization.yaml"] = "apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\n" +
		"resources:\n- " + strings.Join(resources, "\n- ") + "\n"
	for i := range s.Sites {
		site := siteName(i)
		files["overlays/"+site+"/kustomization.yaml"] = overlayKustomization(i)
		files["overlays/"+site+"/site-values.yaml"] = siteValues(i, 0)
	}
	return files
}

// baseObject is one object of the base.
func baseObject(kind, name string) string {
	switch kind {
	case "deployment":
		return fmt.Sprintf(`apiVersion: apps/v1
kind: Deployment
metadata:
  name: %[1]s
  labels: {app: %[1]s}
spec:
  replicas: 1
  selector:
    matchLabels: {app: %[1]s}
  template:
    metadata:
      labels: {app: %[1]s}
    spec:
      serviceAccountName: %[1]s
      containers:
      - name: app
        image: registry.local/%[1]s:1.0.0
        ports:
        - containerPort: 8080
          name: http
        envFrom:
        - configMapRef:
            name: %[1]s-config
        resources:
          requests: {cpu: 100m, memory: 64Mi}
          limits: {memory: 128Mi}
        readinessProbe:
          httpGet: {path: /healthz, port: http}
`, name)
	case "service":
		return fmt.Sprintf(`apiVersion: v1
kind: Service
metadata:
  name: %[1]s
  labels: {app: %[1]s}
spec:
  selector: {app: %[1]s}
  ports:
  - name: http
    port: 80
    targetPort: http
`, name)
	case "configmap":
		return fmt.Sprintf(`apiVersion: v1
kind: ConfigMap
metadata:
  name: %[1]s-config
data:
  LOG_LEVEL: info
  LISTEN: ":8080"
`, name)
	default:
		return fmt.Sprintf("apiVersion: v1\nkind: ServiceAccount\nmetadata:\n  name: %s\n", name)
	}
}

// overlayKustomization is site i's kustomization.
func overlayKustomization(i int) string {
	site := siteName(i)
	return fmt.Sprintf(`apiVersion: kustomize.config.k8s.io/v1beta1
kind: Kustomization
namespace: %[1]s
resources:
- ../../base
labels:
- pairs:
    site: %[1]s
  includeSelectors: false
patches:
- path: site-values.yaml
images:
- name: registry.local/app-0
  newTag: "1.0.%[2]d"
configMapGenerator:
- name: site-settings
  literals:
  - SITE=%[1]s
  - REGION=region-%[3]d
`, site, i, i%7)
}

// siteValues is site i's strategic-merge patch of app-0 at revision rev; a new rev is a one-site change.
func siteValues(i, rev int) string {
	return fmt.Sprintf(`apiVersion: apps/v1
kind: Deployment
metadata:
  name: app-0
spec:
  replicas: %d
  template:
    spec:
      containers:
      - name: app
        env:
        - name: SITE_REVISION
          value: "%d"
`, 1+i%3, rev)
}

// writeFiles writes files (path → content) under dir.
func writeFiles(tb testing.TB, dir string, files map[string]string) {
	tb.Helper()
	for p, content := range files {
		full := filepath.Join(dir, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			tb.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(content), 0o644); err != nil {
			tb.Fatal(err)
		}
	}
}
