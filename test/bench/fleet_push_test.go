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

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	gitopsv1alpha1 "github.com/siteops/siteops/apis/gitops/v1alpha1"
	"github.com/siteops/siteops/test/testenv"
)

// P10's knobs: pushes measured [20]. The fleet's cluster runs at the bench port base + 100, so that it
// never shares a port with the clusters of P1, P7 and P8.
const (
	envFleetPushes    = "SITEOPS_BENCH_FLEET_PUSHES"
	fleetPortOffset   = 100
	fleetSettleBefore = 2 * time.Second // untimed pause before each push, so that the last rollout has ended
)

// fleetBenchSites are the site clusters of P10's local fleet.
var fleetBenchSites = []string{"site-a", "site-b"}

// pushSample is one push's figures: start of `git push` → SiteSync names the pushed commit as rendered
// (rendered) and → every site Delivered at its new rendered commit (healthy).
type pushSample struct{ rendered, healthy time.Duration }

// BenchmarkFleetPushToHealthy is row P10 (issue 15): `git push` of a base change → SiteSync reports every
// site of the local fleet Delivered (Argo CD synced the site's new rendered commit and the site is Healthy)
// at the rendered revision. The fleet is hack/local-cluster.sh's hub (kube-apiserver, kube-controller-manager,
// kube-scheduler, kwok; Argo CD's application-controller, ApplicationSet controller and repo-server; a git
// daemon) and two site clusters, each its own kube-apiserver, kube-controller-manager, kube-scheduler and
// kwok, registered in Argo CD by a cluster Secret. One siteops bin/manager with the push receiver runs the
// SiteSync; base/argocd's ApplicationSet, with only its repository URL changed, generates the sites'
// Applications. Each push changes base/ (a ConfigMap value and the Deployment's pod-template annotation that
// carries it, as a config checksum would), so both sites get a new rendered commit and roll their Deployment
// (2 replicas, pods run by kwok). The anchor, Argo CD's default 3-minute poll, is quoted, not run.
func BenchmarkFleetPushToHealthy(b *testing.B) {
	pushes := envInt(b, envFleetPushes, 20)
	var samples []pushSample
	for b.Loop() {
		f := newBenchFleet(b)
		for i := range pushes {
			time.Sleep(fleetSettleBefore)
			s := f.pushBaseAndWait(b, i+2)
			samples = append(samples, s)
			b.Logf("push %d: rendered %s, every site Delivered %s", i+1, FormatDuration(s.rendered),
				FormatDuration(s.healthy))
		}
		f.checkSites(b, pushes+1)
	}
	recordP10(b, samples)
}

// recordP10 records row P10 from the pushes' figures.
func recordP10(b *testing.B, samples []pushSample) {
	var healthy, rendered []time.Duration
	for _, s := range samples {
		healthy, rendered = append(healthy, s.healthy), append(rendered, s.rendered)
	}
	p50, p99 := Quantile(healthy, 0.5), Quantile(healthy, 0.99)
	r50, r99 := Quantile(rendered, 0.5), Quantile(rendered, 0.99)
	b.ReportMetric(p50.Seconds()*1000, "p50-ms")
	b.ReportMetric(p99.Seconds()*1000, "p99-ms")
	halfPoll := argoCDPoll / 2
	Record(Row{
		ID: "P10",
		Siteops: fmt.Sprintf("p50 %s, p99 %s (of which to the rendered commit: p50 %s, p99 %s)", FormatDuration(p50),
			FormatDuration(p99), FormatDuration(r50), FormatDuration(r99)),
		Anchor: fmt.Sprintf("Argo CD's default poll, timeout.reconciliation %s: quoted, not run; a poll waits "+
			"half of it on average, %s", FormatDuration(argoCDPoll), FormatDuration(halfPoll)),
		Ratio:   "p50 vs " + FormatDuration(halfPoll) + ": " + FormatSpeedup(p50, halfPoll),
		Outcome: Judge(p50 < 5*time.Second),
		N:       fmt.Sprintf("%d pushes × %d sites", len(samples), len(fleetBenchSites)),
		Notes: fmt.Sprintf("clock starts before `git push` of a base change (a ConfigMap value and the web "+
			"Deployment's pod-template annotation, so each site rolls 2 kwok pods), then a signed GitHub push "+
			"event to the receiver; stops when SiteSync status shows every site Delivered (Synced, Healthy) with "+
			"renderedCommit = syncedRevision = the commit rendering the push (polled every 50 ms); %s untimed "+
			"between pushes; local fleet: hub (kube-apiserver, kcm, scheduler, kwok, Argo CD %s "+
			"application-controller + ApplicationSet controller + repo-server, git daemon) and 2 site clusters "+
			"(own kube-apiserver, kcm, scheduler, kwok) registered as cluster Secrets; one bin/manager; "+
			"hack/local-cluster.sh sets timeout.reconciliation 10 s and --app-resync 15: siteops' refresh "+
			"annotation after each push is what Argo CD acts on, but a run without it was not measured (no "+
			"product flag turns it off)", FormatDuration(fleetSettleBefore), argoCDVersion(b)),
	})
}

// benchFleet is P10's setup: the fleet, the manager, the source repository (a bare repository the git
// daemon serves, and a clone the benchmark pushes from) and the SiteSync "sites" with a push receiver.
type benchFleet struct {
	bc         *benchCluster
	work, bare string
	sitesDir   string // the site clusters' state: sitesDir/<site>/admin.kubeconfig
	hookURL    string
	ss         gitopsv1alpha1.SiteSync
	deliveries int
	rendered   map[string]string // each site's rendered commit last seen Delivered
}

// benchFleetOptions set up a fleet for a benchmark other than P10: its ports (offset from the bench port
// base), the hub's optional components, the SiteSync's rollout, and objects to create before the SiteSync.
type benchFleetOptions struct {
	portOffset int
	components string
	rollout    gitopsv1alpha1.RolloutSpec
	before     func(f *benchFleet)
}

// newBenchFleet starts P10's fleet and the manager, sets up the SiteSync as test/e2e's fleet does and waits
// (untimed) until both sites are Delivered at the first rendered commit.
func newBenchFleet(b *testing.B) *benchFleet {
	return newBenchFleetWith(b, benchFleetOptions{portOffset: fleetPortOffset, components: "kwok argocd"})
}

// newBenchFleetWith is newBenchFleet with o.
func newBenchFleetWith(b *testing.B, o benchFleetOptions) *benchFleet {
	managerBinary(b) // built before the fleet starts
	pb := envInt(b, envPortBase, 26600) + o.portOffset
	f := &benchFleet{bc: startBenchClusterAt(b, pb, o.components, "*", fleetBenchSites...), work: b.TempDir()}
	exports := f.bc.exports(b)
	f.bare = filepath.Join(exports["SITEOPS_GIT_ROOT"], "fleet.git")
	f.sitesDir = exports["SITEOPS_CLUSTER_SITES_DIR"]
	// The manager's probes and receiver sit at base+40 and +41, clear of the hub (+1…+16) and the two sites
	// (+20…+39, ten ports each).
	f.bc.startClusterManager(b, fmt.Sprintf("--health-probe-bind-address=127.0.0.1:%d", pb+40),
		fmt.Sprintf("--receiver-bind-address=127.0.0.1:%d", pb+41))
	f.hookURL = fmt.Sprintf("http://127.0.0.1:%d/hook/bench-fleet/sites", pb+41)

	for rel, content := range fleetBenchSource(1) {
		mustDo(b, os.MkdirAll(filepath.Dir(filepath.Join(f.work, rel)), 0o755))
		mustDo(b, os.WriteFile(filepath.Join(f.work, rel), []byte(content), 0o644))
	}
	runGit(b, "", "init", "-q", "--bare", "-b", "main", f.bare)
	runGit(b, f.work, "init", "-q", "-b", "main")
	runGit(b, f.work, "add", ".")
	runGit(b, f.work, "commit", "-qm", "fleet: base and one overlay per site")
	runGit(b, f.work, "push", "-q", f.bare, "main")

	// The ApplicationSet first, as in the e2e: siteops' first push asks it to run its generator.
	appset, err := os.ReadFile(filepath.Join(testenv.RepoRoot(), "base", "argocd", "applicationset.yaml"))
	mustDo(b, err)
	repo := exports["SITEOPS_GIT_DAEMON"] + "/fleet.git"
	yaml := strings.ReplaceAll(string(appset), "https://git.example.com/platform/siteops.git", repo)
	if !strings.Contains(yaml, repo) {
		b.Fatal("base/argocd/applicationset.yaml no longer names https://git.example.com/platform/siteops.git")
	}
	file := filepath.Join(b.TempDir(), "applicationset.yaml")
	mustDo(b, os.WriteFile(file, []byte(yaml), 0o644))
	if out, err := f.bc.kubectl("apply", "-f", file); err != nil {
		b.Fatalf("applying the ApplicationSet: %v\n%s", err, out)
	}

	ctx := context.Background()
	mustDo(b, f.bc.c.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "bench-fleet"}}))
	mustDo(b, f.bc.c.Create(ctx, &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: "bench-fleet", Name: "hook"},
		StringData: map[string]string{"token": hookToken}}))
	if o.before != nil {
		o.before(f)
	}
	f.ss = gitopsv1alpha1.SiteSync{
		ObjectMeta: metav1.ObjectMeta{Namespace: "bench-fleet", Name: "sites"}, // the ApplicationSet's label
		Spec: gitopsv1alpha1.SiteSyncSpec{
			Source: gitopsv1alpha1.GitSource{URL: "file://" + f.bare, Ref: "main"},
			Target: gitopsv1alpha1.GitTarget{Branch: "rendered"},
			// Ten minutes: within the benchmark only the receiver's trigger starts a sync.
			Interval:    &metav1.Duration{Duration: 10 * time.Minute},
			Receiver:    &gitopsv1alpha1.Receiver{SecretRef: gitopsv1alpha1.LocalSecretReference{Name: "hook"}},
			RolloutSpec: o.rollout,
		},
	}
	mustDo(b, f.bc.c.Create(ctx, &f.ss))
	first := runGit(b, f.work, "rev-parse", "HEAD")
	f.waitDelivered(b, first, 5*time.Minute)
	return f
}
