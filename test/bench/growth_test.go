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
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/siteops/siteops/gitops"
	"github.com/siteops/siteops/test/gitserver"
)

// Environment knobs of the growth curve (row P9).
const (
	// envGrowthSites lists the sizes, comma-separated [100]; `make bench-scale` sets 100,1000,10000.
	envGrowthSites = "SITEOPS_BENCH_GROWTH_SITES"
	// envGrowthCLISample is how many sites of each size the kustomize CLI renders [100].
	envGrowthCLISample = "SITEOPS_BENCH_GROWTH_CLI_SAMPLE"
)

// growthPoint is what the growth curve measured at one size.
type growthPoint struct {
	Sites, Resources int
	// Cold is the first Sync into empty caches (clone, render every site, push every file); Full is a full
	// re-render with warm caches after a one-site change (every site rendered, one file pushed).
	Cold, Full         measurement
	ColdRSS, FullRSS   int64 // peak RSS of the worker processes, bytes
	Incremental        []measurement
	IncrementalRSS     int64
	PushToRendered     []time.Duration
	PackBytes          int64 // git pack-objects of the rendered branch's history
	RenderedCommits    int
	CLISample          int // sites the kustomize CLI rendered
	CLI                measurement
	CLIName            string
	SetupWall          time.Duration // generating and pushing the repository (not a measure)
	RenderedManifests  int
	IncrementalSamples int
}

// cliScaled is the kustomize CLI's time for every site, scaled linearly from its sample.
func (p growthPoint) cliScaled() time.Duration {
	return p.CLI.wall * time.Duration(p.Sites) / time.Duration(p.CLISample)
}

// incrementalWall is the median wall time of the incremental Syncs.
func (p growthPoint) incrementalWall() time.Duration { return Median(walls(p.Incremental)) }

// growthSizes reads the sizes of the curve.
func growthSizes(tb testing.TB) []int {
	tb.Helper()
	return envSizes(tb, envGrowthSites, benchShape.Sites)
}

// measureGrowth measures one size: a repository of shape on a real Git server, a cold and a warm full Sync,
// rounds one-site changes pushed and synced incrementally (each in its own worker process), the kustomize
// CLI on cliSample sites of it, and the rendered branch's pack size.
func measureGrowth(tb testing.TB, shape repoShape, rounds, cliSample int) growthPoint {
	tb.Helper()
	p := growthPoint{Sites: shape.Sites, Resources: shape.Resources, CLISample: min(cliSample, shape.Sites)}
	setup := time.Now()
	srv := gitserver.Start(tb, gitserver.Options{})
	url := srv.NewRepo(tb, sourceRepo, shape.files())
	wt := srv.Clone(tb, sourceRepo)
	p.SetupWall = time.Since(setup)
	task := growthTask{URL: url, WorkDir: tb.TempDir(), Clone: wt.Dir, Sites: shape.Sites, Rounds: rounds}

	task.Mode = growthFull
	cold := runGrowthTask(tb, task)
	p.Cold, p.ColdRSS = measurement{wall: cold.Wall, cpu: cold.CPU}, cold.PeakRSS

	// A one-site change, so the warm full Sync pushes a commit as the incremental ones do.
	wt.Write("overlays/"+siteName(0)+"/site-values.yaml", siteValues(0, 1))
	wt.Commit("site-000: revision 1")
	wt.Push()
	full := runGrowthTask(tb, task)
	p.Full, p.FullRSS = measurement{wall: full.Wall, cpu: full.CPU}, full.PeakRSS

	task.Mode, task.Previous, task.FirstRev = growthIncremental, tb.TempDir()+"/previous.json", 2
	if err := writeJSON(task.Previous, full.Sites); err != nil {
		tb.Fatal(err)
	}
	inc := runGrowthTask(tb, task)
	for i := range inc.SyncWalls {
		p.Incremental = append(p.Incremental, measurement{wall: inc.SyncWalls[i], cpu: inc.SyncCPUs[i]})
	}
	p.IncrementalRSS, p.PushToRendered, p.IncrementalSamples = inc.PeakRSS, inc.PushToRendered, len(inc.SyncWalls)

	log := srv.Log(tb, sourceRepo, gitops.DefaultTargetBranch)
	if p.RenderedCommits = len(log); p.RenderedCommits != 2+rounds {
		tb.Fatalf("the rendered branch has %d commits, want the cold Sync's, the full one's and %d more",
			p.RenderedCommits, rounds)
	}
	for _, f := range srv.Files(tb, sourceRepo, gitops.DefaultTargetBranch) {
		if strings.HasSuffix(f, "/"+gitops.ManifestFile) {
			p.RenderedManifests++
		}
	}
	if p.RenderedManifests != shape.Sites {
		tb.Fatalf("the rendered branch holds %d manifests, want one per site (%d)", p.RenderedManifests, shape.Sites)
	}
	p.PackBytes = packSize(tb, srv.GitDir(sourceRepo), gitops.DefaultTargetBranch)

	cli := findKustomize(tb)
	p.CLIName = cli.Name
	sample := make([]string, p.CLISample)
	for i := range sample {
		sample[i] = siteName(i * shape.Sites / p.CLISample)
	}
	p.CLI, _ = cli.buildSites(tb, wt.Dir, sample, 2)
	return p
}

// packSize is the size in bytes of a pack of branch's history in the bare repository gitDir.
func packSize(tb testing.TB, gitDir, branch string) int64 {
	tb.Helper()
	cmd := exec.Command("git", "--git-dir", gitDir, "pack-objects", "--revs", "--stdout", "-q")
	cmd.Stdin = strings.NewReader("refs/heads/" + branch + "\n")
	out, err := cmd.Output()
	if err != nil {
		tb.Fatalf("packing %s: %v", branch, err)
	}
	return int64(len(out))
}

// BenchmarkGrowthCurve is row P9: at each size of SITEOPS_BENCH_GROWTH_SITES (default 100; `make
// bench-scale`: 100, 1,000 and 10,000) sites × 20 resources, on a real Git server, gitops.Sync's full render
// (cold, then warm), SITEOPS_BENCH_PUSHES (default 10) one-site changes synced incrementally (push →
// rendered commit), each workload in its own process for its peak RSS, the rendered branch's pack size, and
// the kustomize CLI on a 100-site sample scaled to the size. It records a row per size and, with
// SITEOPS_BENCH_WRITE=1, writes the curve (growth.json, growth.png).
func BenchmarkGrowthCurve(b *testing.B) {
	sizes := growthSizes(b)
	rounds := envInt(b, envPushes, 10)
	sample := envInt(b, envGrowthCLISample, 100)
	resources := envInt(b, envResources, benchShape.Resources)
	var points []growthPoint
	for b.Loop() {
		points = points[:0]
		for _, n := range sizes {
			p := measureGrowth(b, repoShape{Sites: n, Resources: resources}, rounds, sample)
			b.Logf("%d sites: %s", n, p.summary())
			points = append(points, p)
		}
	}
	last := points[len(points)-1]
	b.ReportMetric(last.Full.wall.Seconds(), "full-s")
	b.ReportMetric(last.incrementalWall().Seconds()*1000, "incremental-ms")
	b.ReportMetric(float64(max(last.FullRSS, last.ColdRSS))/(1<<20), "peak-rss-MiB")
	recordGrowth(points, len(sizes) > 1)
	if os.Getenv(WriteEnv) == "1" {
		if err := writeGrowthCurve(points); err != nil {
			b.Fatal(err)
		}
	}
}

// summary is one log line of p.
func (p growthPoint) summary() string {
	return fmt.Sprintf("setup %s; cold Sync %s (CPU %s, peak RSS %s); full %s (CPU %s, peak RSS %s); "+
		"incremental median %s (CPU %s, peak RSS %s); push → rendered p50 %s; pack %s; "+
		"kustomize %d sites -P 2: %s (scaled %s)",
		FormatDuration(p.SetupWall), FormatDuration(p.Cold.wall), FormatDuration(p.Cold.cpu), formatBytes(p.ColdRSS),
		FormatDuration(p.Full.wall), FormatDuration(p.Full.cpu), formatBytes(p.FullRSS),
		FormatDuration(p.incrementalWall()), FormatDuration(Median(cpus(p.Incremental))), formatBytes(p.IncrementalRSS),
		FormatDuration(Median(append([]time.Duration(nil), p.PushToRendered...))), formatBytes(p.PackBytes),
		p.CLISample, FormatDuration(p.CLI.wall), FormatDuration(p.cliScaled()))
}

// formatBytes formats n bytes in MiB (KiB below 1 MiB).
func formatBytes(n int64) string {
	if n < 1<<20 {
		return fmt.Sprintf("%.3g KiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%.3g MiB", float64(n)/(1<<20))
}

// TestGrowthCurveSmoke measures two small sizes end to end (workers in their own processes, the rendered
// branch checked, the CLI sample) and checks the points hold what the row and the plot need.
func TestGrowthCurveSmoke(t *testing.T) {
	var points []growthPoint
	for _, n := range []int{3, 6} {
		points = append(points, measureGrowth(t, repoShape{Sites: n, Resources: smokeShape.Resources}, 2, 2))
	}
	for _, p := range points {
		if p.ColdRSS <= 0 || p.FullRSS <= 0 || p.IncrementalRSS <= 0 || p.PackBytes <= 0 {
			t.Fatalf("%d sites: missing figures: %+v", p.Sites, p)
		}
		if len(p.Incremental) != 2 || len(p.PushToRendered) != 2 || p.CLISample != 2 {
			t.Fatalf("%d sites: %d incremental Syncs, %d push latencies, CLI on %d sites; want 2, 2, 2",
				p.Sites, len(p.Incremental), len(p.PushToRendered), p.CLISample)
		}
		if p.cliScaled() != p.CLI.wall*time.Duration(p.Sites)/2 {
			t.Fatalf("%d sites: CLI time not scaled from its 2-site sample", p.Sites)
		}
	}
	if points[1].PackBytes <= points[0].PackBytes {
		t.Errorf("the 6-site rendered branch packs to %d bytes, not more than the 3-site one's %d",
			points[1].PackBytes, points[0].PackBytes)
	}
}
