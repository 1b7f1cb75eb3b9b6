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
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/siteops/siteops/test/podproc"
)

// managerSelector selects the manager Rollout's pods (base/manager/rollout.yaml).
const managerSelector = "app.kubernetes.io/name=siteops,app.kubernetes.io/component=manager"

// podBacked is the manager Rollout's pods backed by real processes: the harness, and loopback proxies for the
// active Service's webhook port and the preview Service's shadow port.
type podBacked struct {
	*podproc.Harness
	webhook, shadow *podproc.Proxy
	caBundle        string
	client          kubernetes.Interface
}

// restartDelay is the harness' back-off before it restarts a manager process that died: longer than the
// managers' lease duration (15s), so a killed leader's Lease expires while no process of its colour runs.
const restartDelay = 20 * time.Second

// startPodBacked runs a podproc.Harness for the manager pods in siteops-system, with the shadow report over
// HTTPS and token authentication, until the test ends. A pod whose image tag is a key of binaries runs that
// manager build instead of this checkout's.
func startPodBacked(t *testing.T, binaries map[string]string) *podBacked {
	t.Helper()
	cfg, err := clientcmd.BuildConfigFromFlags("", cluster.kubeconfig)
	if err != nil {
		t.Fatal(err)
	}
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	certDir, caBundle := webhookCerts(t)
	// The harness' goroutines may log while the test ends: drop what comes after it.
	var logMu sync.Mutex
	logging := true
	logf := func(format string, args ...any) {
		logMu.Lock()
		defer logMu.Unlock()
		if logging {
			t.Logf(format, args...)
		}
	}
	h := podproc.New(podproc.Config{Client: cs, Namespace: "siteops-system", Selector: managerSelector,
		Binary: managerBinary(t), Binaries: binaries, Kubeconfig: cluster.kubeconfig,
		ActiveService: "siteops-webhook-service", WebhookCertDir: certDir, StandbySecure: true,
		WorkDir: t.TempDir(), RestartDelay: restartDelay, Logf: logf,
		Args: []string{"--zap-log-level=1", "--zap-time-encoding=rfc3339nano"}})
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(func() {
		cancel()
		h.Stop()
		if t.Failed() {
			keepManagerLogs(t, h.Processes())
		}
		logMu.Lock()
		logging = false
		logMu.Unlock()
	})
	if err := h.Start(ctx); err != nil {
		t.Fatal(err)
	}
	pb := &podBacked{Harness: h, caBundle: caBundle, client: cs}
	if pb.webhook, err = h.Proxy(ctx, "siteops-webhook-service", 443); err != nil {
		t.Fatal(err)
	}
	if pb.shadow, err = h.Proxy(ctx, "siteops-webhook-service-preview", 8082); err != nil {
		t.Fatal(err)
	}
	return pb
}

// keepManagerLogs writes the log of each process to a file under the system's temporary folder, which outlives
// the test, and names the files in one line each: the failure stays among the last lines of the test's output.
func keepManagerLogs(t *testing.T, procs []*podproc.PodProcess) {
	dir := filepath.Join(os.TempDir(), "siteops-e2e", strings.ReplaceAll(t.Name(), "/", "_"))
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Logf("keeping the managers' logs: %v", err)
		return
	}
	for i, p := range procs {
		path := filepath.Join(dir, fmt.Sprintf("%s-%d.log", p.Pod, i))
		if err := os.WriteFile(path, []byte(p.Logs()), 0o644); err != nil {
			t.Logf("keeping the log of pod %s's manager: %v", p.Pod, err)
			continue
		}
		t.Logf("manager of pod %s: log in %s", p.Pod, path)
	}
}

// routeLocalToPods writes the local site's e2e-only patches into the source copy work: the manager pods are
// annotated for the harness (kwok leaves their readiness to it), admission goes to the active Service's proxy,
// the pre-promotion analysis reads the preview Service's proxy, old pods stay scaleDown seconds after a
// promote, and an aborted preview 5 seconds.
func routeLocalToPods(t *testing.T, work string, pb *podBacked, scaleDown int) {
	t.Helper()
	writeFile(t, work, "overlays/local/webhook-mutating.yaml", webhookRouting("mutate", pb.webhook.Port, pb.caBundle))
	writeFile(t, work, "overlays/local/webhook-validating.yaml", webhookRouting("validate", pb.webhook.Port, pb.caBundle))
	writeFile(t, work, "overlays/local/analysis-standby-report.yaml",
		fmt.Sprintf(`# The preview Service's standby port, played by the
# test harness' loopback proxy on 127.0.0.1:%d (HTTPS, the standby-reader token from base's headers).
- op: replace
  path: /spec/metrics/0/provider/web/url
  value: https://127.0.0.1:%d/standby
- op: replace
  path: /spec/metrics/0/interval
  value: 3s
`, pb.shadow.Port, pb.shadow.Port))
	writeFile(t, work, "overlays/local/process-backed.yaml",
		fmt.Sprintf(`# e2e only: a harness runs the process of these pods.
apiVersion: argoproj.io/v1alpha1
kind: Rollout
metadata:
  name: siteops-manager
  namespace: siteops-system
spec:
  strategy:
    blueGreen:
      scaleDownDelaySeconds: %d
      abortScaleDownDelaySeconds: 5
  template:
    metadata:
      annotations: {%s: "true"}
`, scaleDown, podproc.ProcessBackedAnnotation))
	editFile(t, work, "overlays/local/kustomization.yaml", "  - path: site-values.yaml\n",
		"  - path: site-values.yaml\n  - path: process-backed.yaml\n")
}

// renderLocal renders site local of the source copy work with the siteops CLI, as SiteSync would, and pushes
// it as local/manifests.yaml on branch rendered of bare; it returns the rendered commit.
func renderLocal(t *testing.T, work, rendered, bare string) string {
	t.Helper()
	cli := filepath.Join(filepath.Dir(managerBinary(t)), "siteops")
	out, err := exec.Command(cli, "render", "--repo", work, "--site", "local").Output()
	if err != nil {
		t.Fatalf("siteops render: %v", err)
	}
	if err := os.MkdirAll(filepath.Join(rendered, "local"), 0o755); err != nil {
		t.Fatal(err)
	}
	writeFile(t, rendered, "local/manifests.yaml", string(out))
	git(t, rendered, "add", ".")
	if st := git(t, rendered, "status", "--porcelain"); st != "" {
		git(t, rendered, "commit", "-qm", "render local at "+git(t, work, "rev-parse", "--short", "HEAD"))
	}
	git(t, rendered, "push", "-q", bare, "rendered")
	return git(t, rendered, "rev-parse", "HEAD")
}

// leaseHolder is the holder of the managers' Lease in siteops-system: "<pod>_<uuid>".
func leaseHolder() string {
	return jsonpath("-n", "siteops-system", "get", "lease", "siteops.siteops.dev", "-o", "jsonpath={.spec.holderIdentity}")
}

// podOf is the manager pod of ReplicaSet hash; "" unless there is exactly one.
func podOf(hash string) string {
	out := jsonpath("-n", "siteops-system", "get", "pods", "-l", "rollouts-pod-template-hash="+hash, "-o",
		"jsonpath={range .items[*]}{.metadata.name} {end}")
	if f := strings.Fields(out); len(f) == 1 {
		return f[0]
	}
	return ""
}
