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
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"sigs.k8s.io/controller-runtime/pkg/client"

	gitopsv1alpha1 "github.com/siteops/siteops/apis/gitops/v1alpha1"
	"github.com/siteops/siteops/test/testenv"
)

// fleetBenchSource is P10's source repository at base release n: a base with a ConfigMap and a Deployment
// whose pod template carries the release (as a config checksum would, so each release rolls the pods), and
// one overlay per site that sets the site's name.
func fleetBenchSource(n int) map[string]string {
	files := map[string]string{
		"base/kustomization.yaml": "resources:\n- site-info.yaml\n- web.yaml\n",
		"base/site-info.yaml": fmt.Sprintf("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: site-info\n"+
			"data:\n  release: %q\n", fmt.Sprint(n)),
		"base/web.yaml": fmt.Sprintf(`apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
spec:
  replicas: 2
  progressDeadlineSeconds: 15
  selector:
    matchLabels: {app: web}
  template:
    metadata:
      labels: {app: web}
      annotations: {bench.siteops.dev/release: %q}
    spec:
      containers:
      - name: web
        image: registry.example/web:1
`, fmt.Sprint(n)),
	}
	for _, s := range fleetBenchSites {
		files["overlays/"+s+"/kustomization.yaml"] = "resources:\n- ../../base\npatches:\n- path: site-values.yaml\n"
		files["overlays/"+s+"/site-values.yaml"] = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: site-info\n" +
			"data:\n  site: " + s + "\n"
	}
	return files
}

// pushBaseAndWait writes base release n, commits, and times `git push` plus the signed push event until
// SiteSync status names the pushed commit as rendered, then until every site is Delivered at a new rendered
// commit that renders it.
func (f *benchFleet) pushBaseAndWait(tb testing.TB, n int) pushSample {
	tb.Helper()
	for rel, content := range fleetBenchSource(n) {
		if strings.HasPrefix(rel, "base/") {
			mustDo(tb, os.WriteFile(filepath.Join(f.work, rel), []byte(content), 0o644))
		}
	}
	runGit(tb, f.work, "commit", "-qam", fmt.Sprintf("base: release %d", n))
	sha := runGit(tb, f.work, "rev-parse", "HEAD")
	var s pushSample
	start := time.Now()
	runGit(tb, f.work, "push", "-q", f.bare, "main")
	f.deliveries++
	sendSignedPush(tb, f.hookURL, "file://"+f.bare, sha, f.deliveries)
	f.poll(tb, time.Minute, "every site Delivered at the rendering of "+sha, func(ss *gitopsv1alpha1.SiteSync) bool {
		if s.rendered == 0 && ss.Status.SourceRevision == sha {
			s.rendered = time.Since(start)
		}
		return f.delivered(ss, sha)
	})
	s.healthy = time.Since(start)
	return s
}

// waitDelivered waits (untimed) until every site is Delivered at the rendering of source commit sha.
func (f *benchFleet) waitDelivered(tb testing.TB, sha string, timeout time.Duration) {
	tb.Helper()
	f.poll(tb, timeout, "every site Delivered at the rendering of "+sha, func(ss *gitopsv1alpha1.SiteSync) bool {
		return f.delivered(ss, sha)
	})
}

// poll gets the SiteSync every 50 ms until done holds, failing tb after timeout with the sites' status.
func (f *benchFleet) poll(tb testing.TB, timeout time.Duration, what string, done func(*gitopsv1alpha1.SiteSync) bool) {
	tb.Helper()
	deadline := time.Now().Add(timeout)
	for {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		err := f.bc.c.Get(ctx, client.ObjectKeyFromObject(&f.ss), &f.ss)
		cancel()
		mustDo(tb, err)
		if done(&f.ss) {
			return
		}
		if time.Now().After(deadline) {
			tb.Fatalf("timed out after %s waiting for %s; sites: %+v", timeout, what, f.ss.Status.Sites)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// delivered reports whether every site of the fleet rendered source commit sha and is Delivered at that
// rendered commit: Argo CD synced it (syncedRevision = renderedCommit) and the site is Healthy. A site's
// rendered commit must be new: the one delivered before is in f.rendered.
func (f *benchFleet) delivered(ss *gitopsv1alpha1.SiteSync, sha string) bool {
	if f.rendered == nil {
		f.rendered = map[string]string{}
	}
	n := 0
	for _, s := range ss.Status.Sites {
		if s.LastRenderedRevision == sha && s.RenderedCommit != "" && s.RenderedCommit != f.rendered[s.Name] &&
			s.SyncedRevision == s.RenderedCommit && s.Delivery == gitopsv1alpha1.DeliveryDelivered {
			n++
		}
	}
	if n != len(fleetBenchSites) || len(ss.Status.Sites) != n {
		return false
	}
	for _, s := range ss.Status.Sites {
		f.rendered[s.Name] = s.RenderedCommit
	}
	return true
}

// checkSites checks, untimed, after the last push that every site's rendered commit is the rendered
// branch's head and that each site cluster holds base release n.
func (f *benchFleet) checkSites(tb testing.TB, n int) {
	tb.Helper()
	head := runGit(tb, f.bare, "rev-parse", "rendered")
	for _, s := range f.ss.Status.Sites {
		if s.RenderedCommit != head {
			tb.Fatalf("site %s: rendered commit %s, want the rendered branch's head %s", s.Name, s.RenderedCommit, head)
		}
	}
	f.checkClusters(tb, n)
}

// checkClusters checks, untimed, that each site cluster holds base release n.
func (f *benchFleet) checkClusters(tb testing.TB, n int) {
	tb.Helper()
	for _, site := range fleetBenchSites {
		kc := filepath.Join(f.sitesDir, site, "admin.kubeconfig")
		out, err := f.bc.kubectl("--kubeconfig", kc, "-n", "siteops-system", "get", "cm", "site-info", "-o",
			"jsonpath={.data.site}/{.data.release}")
		if want := fmt.Sprintf("%s/%d", site, n); err != nil || out != want {
			tb.Fatalf("cluster %s: site-info %q (%v), want %s", site, out, err, want)
		}
	}
}

// exports runs `hack/local-cluster.sh env` and returns the variables it exports.
func (bc *benchCluster) exports(tb testing.TB) map[string]string {
	tb.Helper()
	cmd := exec.Command(filepath.Join(testenv.RepoRoot(), "hack", "local-cluster.sh"), "env")
	cmd.Env = bc.env
	out, err := cmd.Output()
	if err != nil {
		tb.Fatalf("local-cluster.sh env: %v", err)
	}
	vars := map[string]string{}
	for _, line := range strings.Split(string(out), "\n") {
		for _, kv := range strings.Fields(strings.TrimPrefix(line, "export ")) {
			if k, v, ok := strings.Cut(kv, "="); ok {
				vars[k] = v
			}
		}
	}
	return vars
}

// runGit runs git in dir as the benchmark's user and returns its trimmed output, failing tb on an error.
func runGit(tb testing.TB, dir string, args ...string) string {
	tb.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=bench", "GIT_AUTHOR_EMAIL=bench@localhost",
		"GIT_COMMITTER_NAME=bench", "GIT_COMMITTER_EMAIL=bench@localhost")
	out, err := cmd.CombinedOutput()
	if err != nil {
		tb.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return strings.TrimSpace(string(out))
}

// argoCDVersion is the version of the Argo CD binaries the local cluster runs (hack/build-bins.sh's folder
// argocd-<version>-<wrapper digest>).
func argoCDVersion(tb testing.TB) string {
	tb.Helper()
	dir, err := testenv.PinnedDir("argocd")
	if err != nil {
		tb.Fatalf("locating Argo CD: %v", err)
	}
	parts := strings.Split(filepath.Base(dir), "-")
	if len(parts) < 2 {
		return "?"
	}
	return parts[1]
}
