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
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/siteops/siteops/test/testenv"
)

// fleet is one SiteSync over a source repository whose sites are site clusters (or namespaces of one,
// newFleetOn), delivered by the ApplicationSet of base/argocd.
type fleet struct {
	t         *testing.T
	namespace string // of the SiteSync "sites"
	work      string // a clone of the source repository
	bare      string // the source repository the git daemon serves
	mgr       *manager
	token     string
	host      string // the cluster whose namespaces are the sites, or "" for a cluster per site (newFleetOn)
}

// siteKubeconfig is the admin kubeconfig of a site cluster.
func siteKubeconfig(site string) string {
	return filepath.Join(cluster.sitesDir, site, "admin.kubeconfig")
}

// onSite is jsonpath against a site's cluster: kubectl's output, or "" when the object is missing.
func onSite(site string, args ...string) string { return siteKube(site).jsonpath(args...) }

// atSite is jsonpath against where the fleet delivers site: namespace siteops-system of the site's cluster, or
// namespace site of the fleet's host (newFleetOn).
func (f *fleet) atSite(site string, args ...string) string {
	if f.host != "" {
		return siteKube(f.host).jsonpath(append([]string{"-n", site}, args...)...)
	}
	return siteKube(site).jsonpath(append([]string{"-n", "siteops-system"}, args...)...)
}

// localCluster runs hack/local-cluster.sh against the e2e cluster (e.g. stop-site NAME).
func localCluster(t *testing.T, args ...string) {
	t.Helper()
	if err := tryLocalCluster(args...); err != nil {
		t.Fatal(err)
	}
}

// clusterStarts holds a slot for each site cluster starting at once. A start costs about 10 CPU seconds (its
// kube-apiserver's bootstrap, kube-controller-manager's first lists, the node and RBAC objects); a dozen parallel
// tests starting theirs together kept both cores busy for minutes, and the tests already running missed their
// deadlines. Two at a time, one per core, spreads that work out and leaves the running tests their share.
var clusterStarts = make(chan struct{}, 2)

// tryLocalCluster runs hack/local-cluster.sh ARGS on the fleet, as localCluster does, and returns its error.
// Commands that start a cluster wait for a slot of clusterStarts.
func tryLocalCluster(args ...string) error {
	if len(args) > 0 && (args[0] == "add-site" || args[0] == "add-cluster" || args[0] == "start-site") {
		clusterStarts <- struct{}{}
		defer func() { <-clusterStarts }()
	}
	cmd := exec.Command(filepath.Join(testenv.RepoRoot(), "hack", "local-cluster.sh"), args...)
	cmd.Env = cluster.env
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("local-cluster.sh %s: %w\n%s", strings.Join(args, " "), err, out)
	}
	return nil
}

// invalidateClusterCache asks Argo CD to relist a site's cluster now, as `argocd cluster invalidate-cache` does:
// it sets the refresh annotation of the cluster's Secret. Argo CD notices a cluster that went away only when it
// relists it, every ARGOCD_CLUSTER_CACHE_RESYNC_DURATION otherwise. The annotation keeps whole seconds and asks
// only for a relist after the last one: it is the next whole second.
func invalidateClusterCache(t *testing.T, site string) {
	t.Helper()
	at := time.Now().Add(time.Second).UTC().Format(time.RFC3339)
	kubectl(t, "-n", "argocd", "annotate", "--overwrite", "secret", "cluster-"+site, "argocd.argoproj.io/refresh="+at)
}

// fleetSource is a source repository: a base with a ConfigMap and a Deployment, and one overlay per site
// that sets the site's name in the ConfigMap.
func fleetSource(sites []string) map[string]string {
	files := map[string]string{
		"base/kustomization.yaml": "resources:\n- site-info.yaml\n- web.yaml\n",
		"base/site-info.yaml":     "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: site-info\ndata:\n  release: \"1\"\n",
		"base/web.yaml": `apiVersion: apps/v1
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
    spec:
      containers:
      - name: web
        image: registry.example/web:1
`,
	}
	for _, s := range sites {
		files["overlays/"+s+"/kustomization.yaml"] = "resources:\n- ../../base\npatches:\n- path: site-values.yaml\n"
		files["overlays/"+s+"/site-values.yaml"] = siteValues(s, "one")
	}
	return files
}

// siteValues is a site's overlay patch: its name and a greeting in the ConfigMap.
func siteValues(site, greeting string) string {
	return fmt.Sprintf("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: site-info\n"+
		"data:\n  site: %s\n  greeting: %s\n", site, greeting)
}

// newFleet pushes the source repository to the git daemon, starts a manager, applies base/argocd's
// ApplicationSet with only its repository URL and its name (siteops-sites-<ns>, so that tests run side by
// side) changed, and creates the SiteSync "sites" in namespace ns with a push receiver.
func newFleet(t *testing.T, ns string) *fleet {
	t.Helper()
	return newFleetWith(t, ns, "")
}

// newFleetWith is newFleet with spec fields added to the SiteSync: specExtra is YAML at the level of spec's
// fields (e.g. "waves: [...]\nonFailure: Revert\n").
func newFleetWith(t *testing.T, ns, specExtra string) *fleet {
	t.Helper()
	return newFleetFrom(t, ns, fleetSource(cluster.sites), specExtra)
}

// newFleetFrom is newFleetWith over the source repository files (path → content) instead of fleetSource's.
func newFleetFrom(t *testing.T, ns string, files map[string]string, specExtra string) *fleet {
	t.Helper()
	return newFleetOn(t, ns, "", files, specExtra)
}

// newFleetOn is newFleetFrom with the sites as namespaces of one cluster when host is not empty: the
// ApplicationSet's destination is the Argo CD cluster host and namespace <site>, not the cluster named like
// the site and namespace siteops-system.
func newFleetOn(t *testing.T, ns, host string, files map[string]string, specExtra string) *fleet {
	t.Helper()
	f := &fleet{t: t, namespace: ns, token: "e2e-fleet-token-51c2", host: host}
	f.work, f.bare = newSourceRepo(t, ns, files, "fleet: base and one overlay per site")

	f.mgr = startManager(t, ns, shardFlag(ns))
	kubectl(t, "create", "namespace", ns)
	kubectl(t, "-n", ns, "create", "secret", "generic", "receiver", "--from-literal=token="+f.token)
	// The ApplicationSet first, as a platform team installs it: siteops' first push asks it to run its
	// generator, so the sites' Applications appear without waiting for the generator's poll.
	manifest, err := os.ReadFile(filepath.Join(testenv.RepoRoot(), "base", "argocd", "applicationset.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	repo, appset := cluster.gitDaemon+"/"+ns+".git", "siteops-sites-"+ns
	yaml := strings.ReplaceAll(string(manifest), "https://git.example.com/platform/siteops.git", repo)
	yaml = strings.Replace(yaml, "\n  name: siteops-sites\n", "\n  name: "+appset+"\n", 1)
	if !strings.Contains(yaml, repo) || !strings.Contains(yaml, "name: "+appset+"\n") {
		t.Fatal("base/argocd/applicationset.yaml no longer names https://git.example.com/platform/siteops.git " +
			"or is no longer named siteops-sites")
	}
	if host != "" {
		const perCluster = "        name: \"{{path.basename}}\"\n        namespace: siteops-system\n"
		if !strings.Contains(yaml, perCluster) {
			t.Fatal("base/argocd/applicationset.yaml no longer sends each site to the cluster named like it, " +
				"namespace siteops-system")
		}
		yaml = strings.Replace(yaml, perCluster, "        name: "+host+"\n        namespace: \"{{path.basename}}\"\n", 1)
	}
	apply(t, "", yaml)
	t.Cleanup(func() { _, _ = tryKubectl("-n", "argocd", "delete", "applicationset", appset) })
	apply(t, ns, fmt.Sprintf(`
apiVersion: gitops.siteops.dev/v1alpha1
kind: SiteSync
metadata: {name: sites, labels: %s}
spec:
  source: {url: "file://%s", ref: main}
  target: {branch: rendered}
  interval: 10m
  receiver: {secretRef: {name: receiver}}
%s`, shardLabels(ns), f.bare, indent(specExtra, "  ")))
	return f
}

// indent prefixes every non-empty line of s with prefix.
func indent(s, prefix string) string {
	lines := strings.SplitAfter(s, "\n")
	for i, l := range lines {
		if strings.TrimSpace(l) != "" {
			lines[i] = prefix + l
		}
	}
	return strings.Join(lines, "")
}

// push commits every change of the clone, pushes it, announces it to the receiver and waits for the
// rendered commit that names it; it returns the source commit.
func (f *fleet) push(msg string) string {
	f.t.Helper()
	sha := f.announce(msg)
	waitRendered(f.t, f.bare, sha)
	return sha
}

// announce commits every change of the clone, pushes it and announces it to the receiver, without waiting
// for a rendered commit (a freeze window holds it); it returns the source commit.
func (f *fleet) announce(msg string) string {
	f.t.Helper()
	sha := commitAndPush(f.t, f.work, f.bare, msg)
	pushWebhook(f.t, f.mgr.receiverPort, f.namespace, "sites", f.token, "refs/heads/main", sha)
	return sha
}

// site returns fields of the site's entry in the SiteSync status, joined by "|".
func (f *fleet) site(site string, fields ...string) string {
	var path []string
	for _, fl := range fields {
		path = append(path, "{.status.sites[?(@.name==\""+site+"\")]."+fl+"}")
	}
	return jsonpath("-n", f.namespace, "get", "sitesync", "sites", "-o", "jsonpath="+strings.Join(path, "|"))
}

// eventLines lists the events of the fleet's namespace that match the field selector, one "type message" line
// each.
func (f *fleet) eventLines(selector string) string {
	return jsonpath("-n", f.namespace, "get", "events", "--field-selector", selector,
		"-o", "jsonpath={range .items[*]}{.type} {.message}{\"\\n\"}{end}")
}

// renderedHead is the head of the rendered branch, or "" before the first rendered commit.
func (f *fleet) renderedHead() string {
	out, err := gitOut(f.bare, "rev-parse", "--verify", "-q", "rendered")
	if err != nil {
		return ""
	}
	return out
}

// waitDelivered waits until SiteSync reports every named site Delivered (Synced and Healthy) with the
// expected rendered commit (the one that last changed its folder) and Argo CD's synced revision at that commit
// or at the head of the rendered branch.
func (f *fleet) waitDelivered(timeout time.Duration, want map[string]string) {
	f.t.Helper()
	for site, commit := range want {
		waitFor(f.t, timeout, site+" Delivered at "+short(commit), func() (bool, string) {
			got := f.site(site, "renderedCommit", "syncedRevision", "delivery")
			return got == commit+"|"+commit+"|Delivered" || got == commit+"|"+f.renderedHead()+"|Delivered",
				got + " " + f.site(site, "deliveryMessage")
		})
	}
}

// transcript logs `kubectl get sitesync -o wide` and `siteops status` for docs/fleet.md and docs/upgrades.md.
func (f *fleet) transcript(when string) {
	f.t.Helper()
	f.t.Logf("%s:\n$ kubectl get sitesync -n %s -o wide\n%s$ siteops status -n %s\n%s", when, f.namespace,
		kubectl(f.t, "-n", f.namespace, "get", "sitesync", "-o", "wide"), f.namespace, siteopsStatus(f.t, f.namespace))
}

// siteopsStatus runs `siteops status -n ns` (the CLI built beside the manager) and returns its output.
func siteopsStatus(t *testing.T, ns string) string {
	t.Helper()
	return siteopsOnHub(t, []string{"status"}, "-n", ns)
}

// siteopsOnHub runs the siteops CLI built beside the manager, `siteops COMMAND --kubeconfig HUB ARGS`, and
// returns its output.
func siteopsOnHub(t *testing.T, command []string, args ...string) string {
	t.Helper()
	cli := filepath.Join(filepath.Dir(managerBinary(t)), "siteops")
	all := append(append(command, "--kubeconfig", cluster.kubeconfig), args...)
	out, err := exec.Command(cli, all...).CombinedOutput()
	if err != nil {
		t.Fatalf("siteops %s: %v\n%s", strings.Join(all, " "), err, out)
	}
	return string(out)
}

// short is the first 8 characters of a commit.
func short(sha string) string {
	if len(sha) > 8 {
		return sha[:8]
	}
	return sha
}

// newSourceRepo makes the source repository name.git in the git daemon's folder from a work tree holding files
// (path → content), as pushSource does. It returns both folders.
func newSourceRepo(t *testing.T, name string, files map[string]string, msg string) (work, bare string) {
	t.Helper()
	work = t.TempDir()
	for rel, content := range files {
		if err := os.MkdirAll(filepath.Dir(filepath.Join(work, rel)), 0o755); err != nil {
			t.Fatal(err)
		}
		writeFile(t, work, rel, content)
	}
	return work, pushSource(t, work, name, msg)
}

// pushSource makes work a Git repository, commits all it holds with msg and pushes it to main of a new bare
// repository name.git in the git daemon's folder, whose path it returns.
func pushSource(t *testing.T, work, name, msg string) string {
	t.Helper()
	bare := filepath.Join(cluster.gitRoot, name+".git")
	git(t, cluster.gitRoot, "init", "-q", "--bare", "-b", "main", bare)
	git(t, work, "init", "-q", "-b", "main")
	git(t, work, "add", ".")
	git(t, work, "commit", "-qm", msg)
	git(t, work, "push", "-q", bare, "main")
	return bare
}
