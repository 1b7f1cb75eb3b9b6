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
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/siteops/siteops/gitops"
	"github.com/siteops/siteops/test/managerproc"
)

var buildCLIOnce struct {
	sync.Once
	path string
	err  error
}

// siteopsBinary builds ./cmd/siteops once per test binary (managerproc.Build, `make build`'s ldflags).
func siteopsBinary(tb testing.TB) string {
	tb.Helper()
	buildCLIOnce.Do(func() {
		out := filepath.Join(os.TempDir(), fmt.Sprintf("siteops-bench-%d", os.Getpid()))
		if err := managerproc.Build("siteops", out, "v0.0.0-bench"); err != nil {
			buildCLIOnce.err = err
			return
		}
		buildCLIOnce.path = out
	})
	if buildCLIOnce.err != nil {
		tb.Fatal(buildCLIOnce.err)
	}
	return buildCLIOnce.path
}

// siteopsCLI runs `siteops render --repo root --out DIR` as a user would and returns its wall-clock time, the CPU
// time of the process (user + system, from its rusage), and each site's manifests as written under DIR.
func (f *renderFixture) siteopsCLI(tb testing.TB, bin string) (measurement, map[string][]byte) {
	tb.Helper()
	out := tb.TempDir()
	cmd := exec.Command(bin, "render", "--repo", f.root, "--out", out)
	var stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stderr, &stderr
	start := time.Now()
	err := cmd.Run()
	m := measurement{wall: time.Since(start)}
	if err != nil {
		tb.Fatalf("siteops render: %v\n%s", err, stderr.String())
	}
	m.cpu = cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
	rendered := make(map[string][]byte, len(f.sites))
	for _, site := range f.sites {
		p, err := gitops.SitePath(gitops.DefaultPathTemplate, site)
		if err != nil {
			tb.Fatal(err)
		}
		b, err := os.ReadFile(filepath.Join(out, filepath.FromSlash(p), gitops.ManifestFile))
		if err != nil {
			tb.Fatalf("siteops render wrote no manifests for %s: %v", site, err)
		}
		rendered[site] = b
	}
	return m, rendered
}

// cliTimes are the measurements of the two sides of P2-CLI and the outputs of their last runs.
type cliTimes struct {
	cli, parallel2    []measurement
	cliOut, anchorOut map[string][]byte
}

// measureCLI runs one round: the CLI, the anchor (kustomize, 2 processes at a time), the CLI.
func (f *renderFixture) measureCLI(tb testing.TB, bin string, t *cliTimes) {
	tb.Helper()
	run := func() {
		m, out := f.siteopsCLI(tb, bin)
		t.cli, t.cliOut = append(t.cli, m), out
	}
	run()
	m, out := f.kustomize(tb, 2)
	t.parallel2, t.anchorOut = append(t.parallel2, m), out
	run()
}

// BenchmarkRenderAllSitesCLI is row P2-CLI: the full render of P2's repository by the built `siteops render`
// process (start-up, reading the folder, rendering, writing one file per site) against the kustomize CLI per
// site with 2 processes at a time, in the same run; the outputs are checked to hold the same objects for every
// site. One benchmark op is SITEOPS_BENCH_ROUNDS (default 1) rounds of measureCLI; the row reports medians.
func BenchmarkRenderAllSitesCLI(b *testing.B) {
	shape := benchShapeFromEnv(b)
	rounds := envInt(b, envRounds, 1)
	f := newRenderFixture(b, shape)
	bin := siteopsBinary(b)

	var t cliTimes
	for b.Loop() {
		for range rounds {
			f.measureCLI(b, bin, &t)
		}
	}
	f.checkSameOutput(b, t.cliOut, t.anchorOut)
	cli, par := Median(walls(t.cli)), Median(walls(t.parallel2))
	cliCPU, parCPU := Median(cpus(t.cli)), Median(cpus(t.parallel2))
	b.ReportMetric(cli.Seconds(), "siteops-cli-s")
	b.ReportMetric(par.Seconds(), "kustomize-P2-s")
	b.ReportMetric(cliCPU.Seconds(), "siteops-cli-cpu-s")
	b.ReportMetric(parCPU.Seconds(), "kustomize-cpu-s")
	notes := fmt.Sprintf("`siteops render --repo DIR --out DIR2` as a process (built with `make build`'s ldflags), "+
		"one manifests file per site written; anchor: %s per site, 2 processes at a time; same objects checked for "+
		"all %d sites; CPU time (processes' rusage): siteops %s, kustomize %s, ratio %s", f.cli.Name, shape.Sites,
		FormatDuration(cliCPU), FormatDuration(parCPU), FormatSpeedup(cliCPU, parCPU))
	if !f.cli.Pinned {
		notes += "; NOT the pinned CLI (run hack/build-bins.sh kustomize)"
	}
	Record(Row{
		ID: "P2-CLI",
		Measure: fmt.Sprintf("full render, %d sites × %d resources, `siteops render` CLI (wall clock, median)", shape.Sites,
			shape.Resources),
		Siteops: FormatDuration(cli),
		Anchor:  fmt.Sprintf("-P 2: %s", FormatDuration(par)),
		Ratio:   FormatSpeedup(cli, par),
		Outcome: Judge(cli*25 <= par),
		N:       fmt.Sprintf("%d sites; siteops %d runs, anchor %d", shape.Sites, len(t.cli), len(t.parallel2)),
		Notes:   notes,
	})
}

// TestRenderAllSitesCLISmoke runs a round of P2-CLI's measurement on a small repository: the built CLI writes
// every site's manifests, with the objects kustomize renders, and its process CPU time is measured.
func TestRenderAllSitesCLISmoke(t *testing.T) {
	f := newRenderFixture(t, smokeShape)
	var times cliTimes
	f.measureCLI(t, siteopsBinary(t), &times)
	if len(times.cli) != 2 || len(times.parallel2) != 1 {
		t.Fatalf("a round runs the CLI twice and the anchor once, got %d and %d", len(times.cli), len(times.parallel2))
	}
	if len(times.cliOut) != smokeShape.Sites {
		t.Fatalf("the CLI rendered %d sites, want %d", len(times.cliOut), smokeShape.Sites)
	}
	f.checkSameOutput(t, times.cliOut, times.anchorOut)
	for _, m := range times.cli {
		if m.cpu <= 0 {
			t.Fatalf("no CPU time measured for the CLI process: %+v", m)
		}
	}
}
