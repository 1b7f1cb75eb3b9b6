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
	"testing"

	"github.com/siteops/siteops/gitops"
)

// renderFixture is a generated repository on disk, rendered by siteops and by the kustomize CLI.
type renderFixture struct {
	root  string
	sites []string
	cli   kustomizeCLI
}

func newRenderFixture(tb testing.TB, shape repoShape) *renderFixture {
	tb.Helper()
	f := &renderFixture{root: tb.TempDir(), sites: shape.siteNames(), cli: findKustomize(tb)}
	writeFiles(tb, f.root, shape.files())
	return f
}

// siteops renders every site in process with the gitops library and its default worker pool, from opening
// the folder to the last site's YAML, and returns the measurement and each site's output.
func (f *renderFixture) siteops(tb testing.TB) (measurement, map[string][]byte) {
	tb.Helper()
	stop := stopwatch(tb)
	c, err := gitops.OpenDir(f.root)
	if err != nil {
		tb.Fatal(err)
	}
	rendered := c.RenderSites(context.Background(), gitops.DefaultOverlaysDir, f.sites, gitops.DefaultWorkers, nil)
	m := stop()
	c.Close()
	out := make(map[string][]byte, len(rendered))
	for _, r := range rendered {
		if r.Err != nil {
			tb.Fatalf("siteops rendering %s: %v", r.Name, r.Err)
		}
		out[r.Name] = r.YAML
	}
	return m, out
}

// kustomize runs the CLI per site with parallel processes at a time.
func (f *renderFixture) kustomize(tb testing.TB, parallel int) (measurement, map[string][]byte) {
	tb.Helper()
	return f.cli.buildSites(tb, f.root, f.sites, parallel)
}

// checkSameOutput fails tb unless siteops and the anchor render the same objects for every site.
func (f *renderFixture) checkSameOutput(tb testing.TB, siteops, anchor map[string][]byte) {
	tb.Helper()
	for _, site := range f.sites {
		sameObjects(tb, "site "+site, siteops[site], anchor[site])
	}
}

// renderTimes are the measurements of the three sides of P2, and the outputs of their last runs.
type renderTimes struct {
	siteops, sequential, parallel2 []measurement
	out                            [3]map[string][]byte // siteops, sequential, parallel2
}

// measure runs one round: siteops, one anchor, siteops, the other anchor, siteops. siteops brackets the
// anchors, whose order alternates by round, so a drift of the machine's load does not favour either side.
func (f *renderFixture) measure(tb testing.TB, round int, t *renderTimes) {
	tb.Helper()
	siteops := func() {
		m, out := f.siteops(tb)
		t.siteops, t.out[0] = append(t.siteops, m), out
	}
	anchors := []func(){
		func() { m, out := f.kustomize(tb, 1); t.sequential, t.out[1] = append(t.sequential, m), out },
		func() { m, out := f.kustomize(tb, 2); t.parallel2, t.out[2] = append(t.parallel2, m), out },
	}
	siteops()
	anchors[round%2]()
	siteops()
	anchors[(round+1)%2]()
	siteops()
}

// checkSameOutputs fails tb unless the last runs of the three sides render the same objects for every site.
func (f *renderFixture) checkSameOutputs(tb testing.TB, t *renderTimes) {
	tb.Helper()
	f.checkSameOutput(tb, t.out[0], t.out[1])
	f.checkSameOutput(tb, t.out[0], t.out[2])
}

// BenchmarkRenderAllSites is row P2: a full render of a generated repository of 100 sites × 20 resources by
// siteops (gitops library in process, its pool of 2 workers) against the kustomize CLI per site, sequential
// and with 2 in parallel; the outputs of all three are checked to hold the same objects for every site. siteops
// renders once untimed first, as a running controller has kustomize's schema loaded. One benchmark op is
// SITEOPS_BENCH_ROUNDS (default 1) rounds (see measure); the row reports medians.
func BenchmarkRenderAllSites(b *testing.B) {
	shape := benchShapeFromEnv(b)
	rounds := envInt(b, envRounds, 1)
	f := newRenderFixture(b, shape)
	f.siteops(b)

	var t renderTimes
	for b.Loop() {
		for r := range rounds {
			f.measure(b, r, &t)
		}
	}
	f.checkSameOutputs(b, &t)
	siteops, seq, par := Median(walls(t.siteops)), Median(walls(t.sequential)), Median(walls(t.parallel2))
	siteopsCPU, seqCPU := Median(cpus(t.siteops)), Median(cpus(t.sequential))
	b.ReportMetric(siteops.Seconds(), "siteops-s")
	b.ReportMetric(seq.Seconds(), "kustomize-seq-s")
	b.ReportMetric(par.Seconds(), "kustomize-P2-s")
	b.ReportMetric(siteops.Seconds()/par.Seconds(), "ratio-vs-P2")
	b.ReportMetric(siteopsCPU.Seconds(), "siteops-cpu-s")
	b.ReportMetric(seqCPU.Seconds(), "kustomize-cpu-s")

	notes := fmt.Sprintf("anchor: %s per site; siteops: gitops.OpenDir + RenderSites, %d workers, in process; "+
		"same objects checked for all %d sites; CPU time: siteops %s, kustomize sequential %s, ratio %s", f.cli.Name,
		gitops.DefaultWorkers, shape.Sites, FormatDuration(siteopsCPU), FormatDuration(seqCPU),
		FormatSpeedup(siteopsCPU, seqCPU))
	if !f.cli.Pinned {
		notes += "; NOT the pinned CLI (run hack/build-bins.sh kustomize)"
	}
	Record(Row{
		ID:      "P2",
		Measure: fmt.Sprintf("full render, %d sites × %d resources (wall clock, median)", shape.Sites, shape.Resources),
		Siteops: FormatDuration(siteops),
		Anchor:  fmt.Sprintf("-P 2: %s; sequential: %s", FormatDuration(par), FormatDuration(seq)),
		Ratio: fmt.Sprintf("vs -P 2: %s; vs sequential: %s", FormatSpeedup(siteops, par),
			FormatSpeedup(siteops, seq)),
		Outcome: Judge(siteops*5 <= par),
		N: fmt.Sprintf("%d sites; siteops %d runs, each anchor %d", shape.Sites, len(t.siteops),
			len(t.sequential)),
		Notes: notes,
	})
}

// TestRenderAllSitesSmoke runs a round of P2's measurement on a small repository: siteops and the kustomize
// CLI, sequential and 2 in parallel, render every site, with the same objects.
func TestRenderAllSitesSmoke(t *testing.T) {
	f := newRenderFixture(t, smokeShape)
	var times renderTimes
	f.measure(t, 0, &times)
	if len(times.siteops) != 3 || len(times.sequential) != 1 || len(times.parallel2) != 1 {
		t.Fatalf("a round measures siteops 3 times and each anchor once, got %d, %d and %d",
			len(times.siteops), len(times.sequential), len(times.parallel2))
	}
	for k, out := range times.out {
		if len(out) != smokeShape.Sites {
			t.Fatalf("side %d rendered %d sites, want %d", k, len(out), smokeShape.Sites)
		}
	}
	f.checkSameOutputs(t, &times)
	for _, site := range f.sites {
		if n := len(objects(t, times.out[0][site])); n != smokeShape.Resources+1 {
			t.Errorf("site %s: %d objects, want the base's %d and the generated ConfigMap", site, n, smokeShape.Resources)
		}
	}
}
