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

// Package e2e runs siteops end to end on a real local cluster without containers (hack/local-cluster.sh):
// etcd, kube-apiserver, kube-controller-manager, kube-scheduler, kwok, Argo Rollouts and Argo CD.
package e2e

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/siteops/siteops/test/testenv"
)

// cluster describes the local cluster TestMain started.
var cluster struct {
	dir        string // state folder (kubeconfig, logs, git root)
	kubeconfig string
	gitRoot    string   // folder the git daemon serves
	gitDaemon  string   // git://127.0.0.1:port
	sites      []string // the site clusters beside the hub (hack/local-sites.sh)
	sitesDir   string   // their state: sitesDir/<site>/admin.kubeconfig
	env        []string
}

// fleetSites are the site clusters every e2e run starts beside the hub: each its own kube-apiserver with
// kube-controller-manager, kube-scheduler and kwok, registered in the hub's Argo CD, and with
// fleetSiteComponents: Argo Rollouts, so a site's manager Rollout pauses and is promoted there.
const (
	fleetSites          = "site-a site-b"
	fleetSiteComponents = "rollouts"
)

func TestMain(m *testing.M) {
	os.Exit(runMain(m))
}

func runMain(m *testing.M) int {
	root := testenv.RepoRoot()
	script := filepath.Join(root, "hack", "local-cluster.sh")
	cache := testenv.Cache()
	// SITEOPS_E2E_PORT_BASE lets two e2e runs share a machine, each with its own ports and state folder.
	portBase, dirName := "26500", "e2e-cluster"
	if pb := os.Getenv("SITEOPS_E2E_PORT_BASE"); pb != "" {
		portBase, dirName = pb, "e2e-cluster-"+pb
	}
	cluster.dir = filepath.Join(cache, dirName)
	env := append(os.Environ(), "SITEOPS_CLUSTER_DIR="+cluster.dir, "SITEOPS_CLUSTER_PORT_BASE="+portBase)
	// SITEOPS_E2E_SITES, when set, replaces fleetSites: empty for a run of tests that need no site cluster (the
	// load tests), whose figures the sites' control planes would otherwise share the machine with.
	sites, set := os.LookupEnv("SITEOPS_E2E_SITES")
	if !set {
		sites = fleetSites
	}
	if sites != "" {
		env = append(env, "SITEOPS_CLUSTER_SITES="+sites, "SITEOPS_CLUSTER_SITE_COMPONENTS="+fleetSiteComponents)
	}
	run := func(args ...string) error {
		cmd := exec.Command(script, args...)
		cmd.Env, cmd.Stdout, cmd.Stderr = env, os.Stderr, os.Stderr
		return cmd.Run()
	}
	// SITEOPS_E2E_FLEET says who starts the fleet. Unset: this run, and it stops it at the end. "up": this run
	// starts it and leaves it running, without running a test (make test does so while the unit tests run).
	// "started": the run of "up" just before did; this run stops it at the end. "down": stop it.
	mode := os.Getenv("SITEOPS_E2E_FLEET")
	switch mode {
	case "", "up":
		// Start from a clean state every time: a previous run's objects would hide bugs.
		_ = run("down", "--wipe")
		if err := run("up"); err != nil {
			fmt.Fprintf(os.Stderr, "local cluster did not come up: %v (logs in %s/logs)\n", err, cluster.dir)
			return 1
		}
	case "down":
		_ = run("down")
		return 0
	case "started":
	default:
		fmt.Fprintf(os.Stderr, "SITEOPS_E2E_FLEET=%q: want up, started or down\n", mode)
		return 2
	}
	if mode != "up" {
		defer func() { _ = run("down") }()
	}
	envCmd := exec.Command(script, "env")
	envCmd.Env = env
	out, err := envCmd.Output()
	if err != nil {
		fmt.Fprintf(os.Stderr, "reading the cluster env: %v\n", err)
		return 1
	}
	cluster.env = env
	for _, line := range strings.Split(string(out), "\n") {
		for _, kv := range strings.Fields(strings.TrimPrefix(line, "export ")) {
			k, v, ok := strings.Cut(kv, "=")
			if !ok {
				continue
			}
			v = strings.ReplaceAll(v, "$PATH", os.Getenv("PATH"))
			cluster.env = append(cluster.env, k+"="+v)
			switch k {
			case "SITEOPS_CLUSTER_SITES":
				cluster.sites = strings.Split(v, ",")
			case "SITEOPS_CLUSTER_SITES_DIR":
				cluster.sitesDir = v
			case "KUBECONFIG":
				cluster.kubeconfig = v
			case "SITEOPS_GIT_ROOT":
				cluster.gitRoot = v
			case "SITEOPS_GIT_DAEMON":
				cluster.gitDaemon = v
			}
		}
	}
	// siteops' CRDs, as `make install` does: the manager processes the tests start watch their kinds.
	if err := hub().installCRDs(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	if mode == "up" {
		return 0
	}
	return m.Run()
}

// kubectl runs kubectl (and its argo rollouts plugin) against the local cluster and returns stdout; it fails
// the test on a non-zero exit.
func kubectl(t testing.TB, args ...string) string {
	t.Helper()
	out, err := tryKubectl(args...)
	if err != nil {
		t.Fatalf("kubectl %s: %v", strings.Join(args, " "), err)
	}
	return out
}

// scheduleNamespace creates namespace ns for a test's CronJobs and deletes it when the test ends, after the
// test's managers have stopped (it is called before they start): the CronJobs would otherwise go on firing every
// minute for the rest of the run, and a later test's managers would reconcile them, a burst each minute.
func scheduleNamespace(t *testing.T, ns string) {
	t.Helper()
	kubectl(t, "create", "namespace", ns)
	t.Cleanup(func() {
		start := time.Now()
		if out, err := tryKubectl("delete", "namespace", ns, "--wait=true", "--timeout=3m"); err != nil {
			t.Logf("deleting namespace %s: %v\n%s", ns, err, out)
			return
		}
		t.Logf("namespace %s deleted in %s", ns, time.Since(start).Round(time.Second))
	})
}

// tryKubectl runs kubectl and returns stdout, or an error carrying stderr.
func tryKubectl(args ...string) (string, error) {
	return tryKubectlIn("", args...)
}

// tryKubectlIn is tryKubectl with stdin.
func tryKubectlIn(stdin string, args ...string) (string, error) {
	cmd := exec.Command("kubectl", args...)
	cmd.Env = cluster.env
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if stdin != "" {
		cmd.Stdin = strings.NewReader(stdin)
	}
	if err := cmd.Run(); err != nil {
		return stdout.String(), fmt.Errorf("%w: %s", err, strings.TrimSpace(stderr.String()))
	}
	return stdout.String(), nil
}

// apply applies YAML with kubectl.
func apply(t testing.TB, namespace, yaml string) {
	t.Helper()
	args := []string{"apply", "-f", "-"}
	if namespace != "" {
		args = append(args, "-n", namespace)
	}
	if _, err := tryKubectlIn(yaml, args...); err != nil {
		t.Fatalf("kubectl apply: %v", err)
	}
}

// waitFor polls cond (pollInterval) until it returns true or timeout passes; then it fails the test with the
// last description cond gave. It waits for state, it asserts no duration.
func waitFor(t testing.TB, timeout time.Duration, what string, cond func() (bool, string)) {
	t.Helper()
	start := time.Now()
	deadline := start.Add(timeout)
	last := ""
	for {
		ok, desc := cond()
		if ok {
			// How long each wait took is logged, not asserted: on a slow run it shows which step took the time.
			if waited := time.Since(start); waited > 5*time.Second {
				t.Logf("waited %s for %s", waited.Round(100*time.Millisecond), what)
			}
			return
		}
		last = desc
		if time.Now().After(deadline) {
			t.Fatalf("timed out after %s waiting for %s; last seen: %s", timeout, what, last)
		}
		time.Sleep(pollInterval(time.Since(start)))
	}
}

// pollInterval is how long waitFor sleeps between looks, elapsed into the wait: 500 ms for the first 5 seconds,
// then 2 s. Most looks run kubectl, a process of its own; with every parallel test looking twice a
// second, the kubectl processes took much of the two cores the fleet runs on.
func pollInterval(elapsed time.Duration) time.Duration {
	if elapsed < 5*time.Second {
		return 500 * time.Millisecond
	}
	return 2 * time.Second
}

// jsonpath returns kubectl get's jsonpath output, or "" when the object is missing.
func jsonpath(args ...string) string {
	out, err := tryKubectl(args...)
	if err != nil {
		return ""
	}
	return strings.TrimSpace(out)
}

// git runs the git CLI in dir.
func git(t testing.TB, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=e2e", "GIT_AUTHOR_EMAIL=e2e@localhost",
		"GIT_COMMITTER_NAME=e2e", "GIT_COMMITTER_EMAIL=e2e@localhost")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return strings.TrimSpace(string(out))
}
