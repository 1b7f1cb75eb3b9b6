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
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/siteops/siteops/gitops"
	"github.com/siteops/siteops/gitops/validate"
	"github.com/siteops/siteops/test/gitserver"
	"github.com/siteops/siteops/test/testenv"
)

// Environment of `make bench-helm`.
const (
	envHelmSites    = "SITEOPS_BENCH_HELM_SITES"     // sites of the full render beside kustomize (default 100)
	envHelmRSSSites = "SITEOPS_BENCH_HELM_RSS_SITES" // sites of the peak-RSS render (default 1,000)
)

// helmRecorded is the block of `make bench-helm`, written by TestMain.
var helmRecorded = NewSection()

// pinnedBinary is binary name of component as hack/build-bins.sh builds it; tb fails when it is not built.
func pinnedBinary(tb testing.TB, component, name string) string {
	tb.Helper()
	bin, err := testenv.PinnedBinary(component, name)
	if err != nil {
		tb.Fatal(err)
	}
	return bin
}

// kustomizeEnableHelm is P18's anchor: the pinned kustomize CLI with --enable-helm and the pinned Helm CLI, for
// the Kubernetes version siteops renders charts for when validation names none, load restrictor off.
func kustomizeEnableHelm(tb testing.TB) kustomizeCLI {
	tb.Helper()
	kustomize, helm := pinnedBinary(tb, "kustomize", "kustomize"), pinnedBinary(tb, "helm", "helm")
	kv, _ := exec.Command(kustomize, "version").Output()
	// go install leaves Helm's own version string at its minor release: the cache folder names the module's.
	hv := strings.TrimPrefix(filepath.Base(filepath.Dir(helm)), "helm-")
	// The sites share one chart home, outside each overlay: kustomize reads the charts' values.yaml there only
	// with its load restrictor off, as its users run it for such a layout.
	return kustomizeCLI{argv: []string{kustomize, "build", "--enable-helm", "--helm-command", helm,
		"--helm-kube-version", validate.DefaultKubernetesVersion(), "--load-restrictor", "LoadRestrictionsNone"},
		Pinned: true,
		Name:   fmt.Sprintf("kustomize %s build --enable-helm with helm %s (pinned)", strings.TrimSpace(string(kv)), hv)}
}

func newHelmFixture(tb testing.TB, sites int, cli kustomizeCLI) *renderFixture {
	tb.Helper()
	shape := helmShape{Sites: sites}
	f := &renderFixture{root: tb.TempDir(), sites: shape.siteNames(), cli: cli}
	writeFiles(tb, f.root, shape.files())
	return f
}

// BenchmarkHelmCharts is P18 (issue 44): sites × 3 charts (one with a subchart) rendered by siteops in process
// beside kustomize --enable-helm with the Helm CLI, -P 2; one site's values change through gitops.Sync; and the
// peak RSS of a 1,000-site render.
func BenchmarkHelmCharts(b *testing.B) {
	sites := envInt(b, envHelmSites, 100)
	f := newHelmFixture(b, sites, kustomizeEnableHelm(b))
	f.siteops(b) // untimed: kustomize's and the schemas' first load, as in a running controller
	var siteops, anchor []measurement
	var outS, outK map[string][]byte
	for b.Loop() { // siteops brackets the anchor, so a drift of the machine's load favours neither side
		m, _ := f.siteops(b)
		siteops = append(siteops, m)
		m, outK = f.kustomize(b, 2)
		anchor = append(anchor, m)
		m, outS = f.siteops(b)
		siteops = append(siteops, m)
	}
	f.checkSameOutput(b, outS, outK)
	s, k := Median(walls(siteops)), Median(walls(anchor))
	sCPU, kCPU := Median(cpus(siteops)), Median(cpus(anchor))
	helmRecorded.Record(Row{
		ID:      "P18 · full render",
		Measure: fmt.Sprintf("full render, %d sites × 3 Helm charts (one with a subchart), wall clock and CPU", sites),
		Siteops: fmt.Sprintf("wall %s, CPU %s", FormatDuration(s), FormatDuration(sCPU)),
		Anchor:  fmt.Sprintf("-P 2: wall %s, CPU %s", FormatDuration(k), FormatDuration(kCPU)),
		Ratio:   fmt.Sprintf("wall %s; CPU %s", FormatSpeedup(s, k), FormatSpeedup(sCPU, kCPU)),
		Target:  "≥ 20× faster", Outcome: Judge(s*20 <= k),
		N: fmt.Sprintf("%d sites; siteops %d runs, anchor %d", sites, len(siteops), len(anchor)),
		Notes: fmt.Sprintf("anchor: %s per site, 2 at a time, --load-restrictor LoadRestrictionsNone (the shared "+
			"chart home is outside each overlay); siteops: gitops.OpenDir + RenderSites, %d workers, in process, a "+
			"fresh chart memo each run (web's values differ per site, cache's and guard's do not); same objects "+
			"checked for all %d sites; CPU: siteops' process, the anchor's processes and their helm children",
			f.cli.Name, gitops.DefaultWorkers, sites),
	})
	oneSiteChange(b, sites)
	peakRSSAt(b, envInt(b, envHelmRSSSites, 1000))
}

// oneSiteChange records P18's one-site row: a gitops.Sync after one site's values change, beside the Sync that
// rendered every site.
func oneSiteChange(b *testing.B, sites int) {
	srv := gitserver.Start(b, gitserver.Options{})
	url := srv.NewRepo(b, sourceRepo, helmShape{Sites: sites}.files())
	var builds, charts atomic.Int64
	sy := gitops.NewSyncer(gitops.SyncerOptions{OnRender: func(string) { builds.Add(1) },
		OnChartRender: func() { charts.Add(1) }})
	o := gitops.SyncOptions{Source: gitops.SourceSpec{URL: url, Ref: gitserver.DefaultBranch}, WorkDir: b.TempDir()}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	stop := stopwatch(b)
	first, err := sy.Sync(ctx, o)
	full := stop()
	if err != nil {
		b.Fatal(err)
	}
	fullBuilds, fullCharts := builds.Load(), charts.Load()
	wt := srv.Clone(b, sourceRepo)
	wt.Write("overlays/"+siteName(0)+"/site-values.yaml", "site: "+siteName(0)+"\nreplicas: 5\n")
	wt.Commit("one site: five replicas")
	wt.Push()
	o.Previous = map[string]gitops.SiteState{}
	for _, s := range first.Sites {
		o.Previous[s.Name] = s
	}
	stop = stopwatch(b)
	res, err := sy.Sync(ctx, o)
	one := stop()
	if err != nil {
		b.Fatal(err)
	}
	oneBuilds, oneCharts := builds.Load()-fullBuilds, charts.Load()-fullCharts
	if len(res.ChangedSites) != 1 || res.ChangedSites[0] != siteName(0) {
		b.Fatalf("the one-site change changed %v", res.ChangedSites)
	}
	helmRecorded.Record(Row{
		ID:      "P18 · one site's values",
		Measure: fmt.Sprintf("gitops.Sync after one site's values file changes, %d sites × 3 charts", sites),
		Siteops: fmt.Sprintf("%s; %d site rendered, %d chart render", FormatDuration(one.wall), oneBuilds, oneCharts),
		Anchor: fmt.Sprintf("the first Sync: %s; %d sites rendered, %d chart renders", FormatDuration(full.wall),
			fullBuilds, fullCharts),
		Ratio:  FormatSpeedup(one.wall, full.wall),
		Target: "one site's values change re-renders one site", Outcome: Judge(oneBuilds == 1),
		N: "1 Sync per side",
		Notes: "git http-backend on 127.0.0.1; one Syncer, as a controller keeps one: its chart memo answers the " +
			"charts whose values did not change",
	})
}

// peakRSSAt records P18's memory row: the bench process's VmHWM after rendering sites × 3 charts in process, an
// upper bound of siteops' own peak (the process ran the other rows first).
func peakRSSAt(b *testing.B, sites int) {
	f := newHelmFixture(b, sites, kustomizeCLI{})
	m, out := f.siteops(b)
	if len(out) != sites {
		b.Fatalf("rendered %d of %d sites", len(out), sites)
	}
	rss, err := peakRSS()
	if err != nil {
		b.Fatal(err)
	}
	helmRecorded.Record(Row{
		ID:      "P18 · " + thousands(sites) + " sites",
		Measure: fmt.Sprintf("peak RSS of a full render, %s sites × 3 charts, in process", thousands(sites)),
		Siteops: fmt.Sprintf("peak RSS %.0f MiB; wall %s, CPU %s", float64(rss)/(1<<20), FormatDuration(m.wall),
			FormatDuration(m.cpu)),
		Anchor: "—", Ratio: "—", Target: "peak RSS ≤ 1 GiB", Outcome: Judge(rss <= 1<<30),
		N:     "1 render",
		Notes: "VmHWM of the benchmark process at the end, so an upper bound: it also ran the rows above",
	})
}

// TestHelmChartsSmoke renders a few sites of P18's repository on both sides and checks the same objects.
func TestHelmChartsSmoke(t *testing.T) {
	f := newHelmFixture(t, 3, kustomizeEnableHelm(t))
	_, s := f.siteops(t)
	_, k := f.kustomize(t, 2)
	f.checkSameOutput(t, s, k)
}
