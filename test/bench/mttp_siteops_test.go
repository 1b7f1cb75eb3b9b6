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
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"

	gitopsv1alpha1 "github.com/siteops/siteops/apis/gitops/v1alpha1"
	"github.com/siteops/siteops/test/testenv"
)

// mttpSiteSyncNamespace holds the SiteSync "sites" of siteops' side.
const mttpSiteSyncNamespace = "bench-mttp"

// mttpArgoCDProcesses are the hub's Argo CD processes (hack/local-cluster.sh's PID files), counted on siteops'
// side with the manager; redis is Argo CD's cache.
var mttpArgoCDProcesses = []string{"argocd-application-controller", "argocd-applicationset-controller",
	"argocd-repo-server", "redis"}

// ingressHealth gives an Ingress kstatus' reading in Argo CD, Healthy once it exists: Argo CD's own check waits
// for an ingress controller's load-balancer address, and neither side's cluster runs an ingress controller.
const ingressHealth = `{"data":{"resource.customizations.health.networking.k8s.io_Ingress":` +
	`"hs = {}\nhs.status = \"Healthy\"\nhs.message = \"no ingress controller: read as kstatus does\"\nreturn hs\n"}}`

// runSiteopsSide measures siteops with Argo CD at n apps on a fresh local cluster: the manager on the host,
// base/argocd's ApplicationSet (its destination the hub itself, namespace = the site); the clock starts with
// `git push` of the n apps, then the SiteSync is created (its first sync renders and publishes every site);
// it stops when the SiteSync reports every site Delivered: Argo CD synced the site's rendered commit and its
// objects are Healthy.
func runSiteopsSide(b *testing.B, pb, n int) mttpSide {
	managerBinary(b)
	bc := startBenchClusterAt(b, pb, "kwok argocd", "*")
	if out, err := bc.kubectl("-n", "argocd", "patch", "configmap", "argocd-cm", "--type=merge", "-p",
		ingressHealth); err != nil {
		b.Fatalf("Argo CD's Ingress health: %v\n%s", err, out)
	}
	createAppNamespaces(b, bc.c, n, mttpSiteSyncNamespace)
	srv, wt := mttpGit(b, n)
	sha := wt.Head()
	warmArgoCD(b, bc, srv.URL(mttpRepo))
	applyMTTPApplicationSet(b, bc, srv.URL(mttpRepo))
	mgr := bc.startClusterManager(b)
	waitUntil(b, 2*time.Minute, "the manager ready", func() bool {
		return httpOK(fmt.Sprintf("http://127.0.0.1:%d/readyz", pb+21))
	})
	procs := newSideProcs()
	procs.add("manager", mgr.cmd.Process.Pid)
	for _, name := range mttpArgoCDProcesses {
		procs.addPIDFile(b, bc.dir, name)
	}

	procs.begin(b)
	clock := newStages()
	wt.Push()
	ss := &gitopsv1alpha1.SiteSync{
		ObjectMeta: metav1.ObjectMeta{Namespace: mttpSiteSyncNamespace, Name: "sites"},
		Spec: gitopsv1alpha1.SiteSyncSpec{
			Source:   gitopsv1alpha1.GitSource{URL: srv.URL(mttpRepo), Ref: "main"},
			Target:   gitopsv1alpha1.GitTarget{Branch: "rendered"},
			Interval: &metav1.Duration{Duration: time.Hour},
			Timeout:  &metav1.Duration{Duration: 10 * time.Minute},
		},
	}
	mustDo(b, bc.c.Create(context.Background(), ss))
	clock.mark("SiteSync created")
	for {
		mustDo(b, getWithin(bc.c, ss))
		if ss.Status.SourceRevision == sha {
			clock.mark("rendered commit pushed")
		}
		apps := argoApps(b, bc.c, srv.Head(b, mttpRepo, "rendered"))
		if apps.total == n {
			clock.mark("Applications generated")
		}
		if apps.synced == n {
			clock.mark("every Application Synced")
		}
		if apps.healthy == n {
			clock.mark("every Application Synced and Healthy")
		}
		delivered := deliveredAt(ss, sha)
		if delivered == n {
			clock.mark("every site Delivered")
			break
		}
		clock.waitTick(b, 30*time.Minute, fmt.Sprintf("every site Delivered (%d of %d; Applications %+v)",
			delivered, n, apps))
	}
	side := mttpSide{wall: clock.since(), stages: clock.stages}
	procs.end(b)
	side.procs = procs
	mgr.stop()
	if got := countAppObjects(b, bc.c); got != 4*n {
		b.Fatalf("siteops side: %d of the apps' objects in the cluster, want %d", got, 4*n)
	}
	return side
}

// warmArgoCD builds Argo CD's cache of the hub, untimed, as a long-running Argo CD holds it: an Application
// of the repository's top folder (a README, no manifests) compares against the hub and is deleted once
// Synced. Built cold, it takes seconds that no later change pays.
func warmArgoCD(tb testing.TB, bc *benchCluster, repo string) {
	tb.Helper()
	app := &unstructured.Unstructured{}
	app.SetAPIVersion("argoproj.io/v1alpha1")
	app.SetKind("Application")
	app.SetNamespace("argocd")
	app.SetName("warm-up")
	app.Object["spec"] = map[string]any{
		"project":     "default",
		"source":      map[string]any{"repoURL": repo, "targetRevision": "main", "path": "."},
		"destination": map[string]any{"server": "https://kubernetes.default.svc", "namespace": "default"},
	}
	mustDo(tb, bc.c.Create(context.Background(), app))
	waitUntil(tb, 5*time.Minute, "Argo CD's warm-up Application Synced", func() bool {
		mustDo(tb, getWithin(bc.c, app))
		sync, _, _ := unstructured.NestedString(app.Object, "status", "sync", "status")
		return sync == "Synced"
	})
	mustDo(tb, bc.c.Delete(context.Background(), app))
	waitUntil(tb, time.Minute, "the warm-up Application gone", func() bool {
		return apierrors.IsNotFound(getWithin(bc.c, app))
	})
}

// applyMTTPApplicationSet applies base/argocd's ApplicationSet with repoURL the side's repository and, as
// test/e2e's sites that are namespaces of one cluster, its destination the hub in the site's namespace.
func applyMTTPApplicationSet(tb testing.TB, bc *benchCluster, repo string) {
	tb.Helper()
	appset, err := os.ReadFile(filepath.Join(testenv.RepoRoot(), "base", "argocd", "applicationset.yaml"))
	mustDo(tb, err)
	yaml := string(appset)
	for old, repl := range map[string]string{
		"https://git.example.com/platform/siteops.git": repo,
		`name: "{{path.basename}}"`:                    "server: https://kubernetes.default.svc",
		"namespace: siteops-system":                    `namespace: "{{path.basename}}"`,
	} {
		if !strings.Contains(yaml, old) {
			tb.Fatalf("base/argocd/applicationset.yaml no longer holds %q", old)
		}
		yaml = strings.ReplaceAll(yaml, old, repl)
	}
	file := filepath.Join(tb.TempDir(), "applicationset.yaml")
	mustDo(tb, os.WriteFile(file, []byte(yaml), 0o644))
	if out, err := bc.kubectl("apply", "-f", file); err != nil {
		tb.Fatalf("applying the ApplicationSet: %v\n%s", err, out)
	}
}

// appCounts counts the sites' Applications: all, Synced at the rendered branch's head, and also Healthy.
type appCounts struct{ total, synced, healthy int }

// argoApps reads the Applications of namespace argocd against the rendered branch's head.
func argoApps(tb testing.TB, c client.Client, head string) appCounts {
	tb.Helper()
	list := &unstructured.UnstructuredList{}
	list.SetAPIVersion("argoproj.io/v1alpha1")
	list.SetKind("ApplicationList")
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	mustDo(tb, c.List(ctx, list, client.InNamespace("argocd")))
	var n appCounts
	for _, a := range list.Items {
		n.total++
		sync, _, _ := unstructured.NestedString(a.Object, "status", "sync", "status")
		rev, _, _ := unstructured.NestedString(a.Object, "status", "sync", "revision")
		health, _, _ := unstructured.NestedString(a.Object, "status", "health", "status")
		if head == "" || sync != "Synced" || rev != head {
			continue
		}
		n.synced++
		if health == "Healthy" {
			n.healthy++
		}
	}
	return n
}

// deliveredAt counts the sites the SiteSync reports Delivered at the rendering of source commit sha.
func deliveredAt(ss *gitopsv1alpha1.SiteSync, sha string) int {
	n := 0
	for _, s := range ss.Status.Sites {
		if s.LastRenderedRevision == sha && s.RenderedCommit != "" && s.SyncedRevision == s.RenderedCommit &&
			s.Delivery == gitopsv1alpha1.DeliveryDelivered {
			n++
		}
	}
	return n
}
