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
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/siteops/siteops/test/testenv"
)

// Flux's side of the mean time to production: its controllers' concurrency is fluxcd/flux-benchmark's, the
// Kustomization's fields are its benchmark's (interval 60m, retryInterval 2m, prune, wait, timeout 1m).
const (
	fluxNamespace         = "flux-system"
	fluxSourceConcurrent  = 10
	fluxKustomizeParallel = 20
)

// fluxDir is the folder of the Flux binaries and CRDs hack/build-bins.sh built (make bench-flux builds them).
func fluxDir(tb testing.TB) string {
	tb.Helper()
	dir, err := testenv.PinnedDir("flux")
	if err != nil {
		tb.Fatalf("locating the Flux controllers: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, ".complete")); err != nil {
		tb.Fatalf("Flux's controllers are not built (make bench-flux builds them: hack/build-bins.sh flux): %v", err)
	}
	return dir
}

// runFluxSide measures Flux at n apps on a fresh local cluster (no Argo CD): source-controller and
// kustomize-controller on the host; the clock starts with `git push` of the n apps, then the GitRepository and
// one Kustomization per app are created, as flux-benchmark applies its bundle; it stops when every
// Kustomization is Ready (applied, and its objects healthy by kstatus) at the pushed commit.
func runFluxSide(b *testing.B, pb, n int) mttpSide {
	dir := fluxDir(b)
	bc := startBenchClusterAt(b, pb, "kwok", "*")
	if out, err := bc.kubectl("apply", "--server-side", "-f", filepath.Join(dir, "crds")); err != nil {
		b.Fatalf("installing Flux's CRDs: %v\n%s", err, out)
	}
	if out, err := bc.kubectl("wait", "--for=condition=Established", "crd", "--all", "--timeout=60s"); err != nil {
		b.Fatalf("Flux's CRDs not established: %v\n%s", err, out)
	}
	createAppNamespaces(b, bc.c, n, fluxNamespace)
	srv, wt := mttpGit(b, n)
	sha := wt.Head()

	env := append(os.Environ(), "KUBECONFIG="+bc.kubeconfig, "RUNTIME_NAMESPACE="+fluxNamespace)
	addr := func(off int) string { return fmt.Sprintf("127.0.0.1:%d", pb+off) }
	procs := newSideProcs()
	src := startHostProcess(b, "source-controller", env, filepath.Join(dir, "source-controller"),
		"--storage-path="+b.TempDir(), "--storage-addr="+addr(50), "--storage-adv-addr="+addr(50),
		"--metrics-addr="+addr(51), "--health-addr="+addr(52), "--enable-leader-election=false",
		fmt.Sprintf("--concurrent=%d", fluxSourceConcurrent))
	ks := startHostProcess(b, "kustomize-controller", env, filepath.Join(dir, "kustomize-controller"),
		"--metrics-addr="+addr(53), "--health-addr="+addr(54), "--enable-leader-election=false",
		fmt.Sprintf("--concurrent=%d", fluxKustomizeParallel))
	for _, h := range []string{addr(52), addr(54)} {
		waitUntil(b, 2*time.Minute, "Flux controller ready at "+h, func() bool { return httpOK("http://" + h + "/readyz") })
	}
	procs.add("source-controller", src.cmd.Process.Pid)
	procs.add("kustomize-controller", ks.cmd.Process.Pid)

	procs.begin(b)
	clock := newStages()
	wt.Push()
	mustDo(b, bc.c.Create(context.Background(), fluxGitRepository(srv.URL(mttpRepo))))
	createAll(b, bc.c, n, func(i int) client.Object { return fluxKustomization(i) })
	clock.mark("objects created")
	for {
		repo := fluxObject("source.toolkit.fluxcd.io/v1", "GitRepository", mttpRepo)
		mustDo(b, getWithin(bc.c, repo))
		if rev, _, _ := unstructured.NestedString(repo.Object, "status", "artifact", "revision"); strings.Contains(rev, sha) {
			clock.mark("source fetched")
		}
		ready := fluxReadyAt(b, bc.c, sha)
		if ready > 0 {
			clock.mark("first Kustomization Ready")
		}
		if ready == n {
			clock.mark("every Kustomization Ready")
			break
		}
		clock.waitTick(b, 30*time.Minute, fmt.Sprintf("every Kustomization Ready (%d of %d)", ready, n))
	}
	side := mttpSide{wall: clock.since(), stages: clock.stages}
	procs.end(b)
	side.procs = procs
	src.stop()
	ks.stop()
	if got := countAppObjects(b, bc.c); got != 4*n {
		b.Fatalf("Flux side: %d of the apps' objects in the cluster, want %d", got, 4*n)
	}
	return side
}

// fluxObject is an empty Flux object of namespace flux-system to read into.
func fluxObject(apiVersion, kind, name string) *unstructured.Unstructured {
	u := &unstructured.Unstructured{}
	u.SetAPIVersion(apiVersion)
	u.SetKind(kind)
	u.SetNamespace(fluxNamespace)
	u.SetName(name)
	return u
}

// fluxGitRepository is the GitRepository of the source repository's main branch.
func fluxGitRepository(url string) *unstructured.Unstructured {
	u := fluxObject("source.toolkit.fluxcd.io/v1", "GitRepository", mttpRepo)
	u.Object["spec"] = map[string]any{"url": url, "interval": "60m", "ref": map[string]any{"branch": "main"}}
	return u
}

// fluxKustomization is app i's Kustomization: its overlay, from the GitRepository.
func fluxKustomization(i int) *unstructured.Unstructured {
	u := fluxObject("kustomize.toolkit.fluxcd.io/v1", "Kustomization", mttpApp(i))
	u.Object["spec"] = map[string]any{
		"sourceRef": map[string]any{"kind": "GitRepository", "name": mttpRepo},
		"path":      "./overlays/" + mttpApp(i), "interval": "60m", "retryInterval": "2m",
		"prune": true, "wait": true, "timeout": "1m",
	}
	return u
}

// fluxReadyAt counts the Kustomizations Ready at source commit sha.
func fluxReadyAt(tb testing.TB, c client.Client, sha string) int {
	tb.Helper()
	list := &unstructured.UnstructuredList{}
	list.SetAPIVersion("kustomize.toolkit.fluxcd.io/v1")
	list.SetKind("KustomizationList")
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	mustDo(tb, c.List(ctx, list, client.InNamespace(fluxNamespace)))
	n := 0
	for _, k := range list.Items {
		rev, _, _ := unstructured.NestedString(k.Object, "status", "lastAppliedRevision")
		if strings.Contains(rev, sha) && conditionTrue(k, "Ready") {
			n++
		}
	}
	return n
}

// conditionTrue reports whether u's status condition typ is True.
func conditionTrue(u unstructured.Unstructured, typ string) bool {
	conds, _, _ := unstructured.NestedSlice(u.Object, "status", "conditions")
	for _, c := range conds {
		m, _ := c.(map[string]any)
		if m["type"] == typ {
			return m["status"] == "True"
		}
	}
	return false
}

// getWithin gets obj with a minute's timeout.
func getWithin(c client.Client, obj client.Object) error {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	return c.Get(ctx, client.ObjectKeyFromObject(obj), obj)
}

// httpOK reports whether a GET of url answers 200.
func httpOK(url string) bool {
	resp, err := http.Get(url) //nolint:gosec,noctx // a probe of a process the benchmark started on 127.0.0.1
	if err != nil {
		return false
	}
	_ = resp.Body.Close()
	return resp.StatusCode == http.StatusOK
}
