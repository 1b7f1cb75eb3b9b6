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
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// The mean time to production beside Flux (issue 34, `make bench-flux`).
const (
	// envMTTPApps lists the sizes, comma-separated; the benchmark runs only when it is set (make bench-flux
	// sets 100,500,1000).
	envMTTPApps = "SITEOPS_BENCH_FLUX_APPS"
	// mttpPortOffset puts the clusters of make bench-flux at the bench port base + 200, clear of P10's fleet.
	mttpPortOffset = 200
	// mttpPoll is how often both sides' status is read.
	mttpPoll = time.Second
	// mttpIDFormat names a size's row.
	mttpIDFormat = "P17 · %s apps"
	// mttpServiceRange gives the hub room for 1,000 apps' Services (the local cluster's default is a /24).
	mttpServiceRange = "10.96.0.0/16"
	// mttpArgoCDResync is Argo CD's default refresh of every Application, 180 s (the local fleet's is 15 s, for
	// tests that wait on it): neither side polls Git in the measured window.
	mttpArgoCDResync = "180"
	// mttpArgoCDCacheResync is Argo CD's default re-list of a cluster's cache, 12 h. The local fleet's 10 min
	// is for the tests of a site that goes away; a re-list during the run holds the cluster's cache, and an
	// object applied meanwhile can stay Missing until the next one.
	mttpArgoCDCacheResync = "12h"
	// mttpArgoCDProcessors are the application controller's operation and status processors that Argo CD's
	// high-availability guide gives for 1,000 Applications (its defaults are 10 and 20), as Flux's side runs
	// flux-benchmark's concurrency.
	mttpArgoCDProcessors = "25 50"
)

// fluxPublished is Flux's own mean time to production (fluxcd/flux-benchmark, Flux v2.9 on a 16-core GitHub
// runner, as issue 34 quotes it), by number of apps: quoted beside this machine's figures, not run.
var fluxPublished = map[int]string{100: "26 s", 500: "2 min 0 s", 1000: "4 min 13 s"}

// fluxRecorded is the block of `make bench-flux`, written by TestMain.
var fluxRecorded = NewSection()

// mttpSide is one side's run at one size: push → every object Ready, the stages on the way, and its processes'
// CPU time and peak RSS over the run.
type mttpSide struct {
	wall   time.Duration
	stages []stage
	procs  *sideProcs
}

// BenchmarkMTTPBesideFlux is the mean time to production beside Flux (issue 34, rows "P17 · N apps"): at
// each size of SITEOPS_BENCH_FLUX_APPS, N apps of fluxcd/flux-benchmark's four objects (a Deployment scaled to
// zero, a ServiceAccount, a Service, an Ingress), each an overlay of one source repository, from `git push` to
// every object Ready: Flux (source-controller and kustomize-controller, one Kustomization per app, Ready by
// kstatus) first, then siteops (render, publish, Argo CD's ApplicationSet, sync and health, SiteSync's
// Delivered), each on a fresh local cluster of its own (kwok runs the pods), one after the other.
func BenchmarkMTTPBesideFlux(b *testing.B) {
	if os.Getenv(envMTTPApps) == "" {
		b.Skip("make bench-flux runs it (" + envMTTPApps + " unset)")
	}
	sizes := envSizes(b, envMTTPApps, 100)
	b.Setenv("SITEOPS_CLUSTER_SERVICE_RANGE", mttpServiceRange)
	b.Setenv("SITEOPS_ARGOCD_APP_RESYNC", mttpArgoCDResync)
	b.Setenv("ARGOCD_CLUSTER_CACHE_RESYNC_DURATION", mttpArgoCDCacheResync)
	b.Setenv("SITEOPS_ARGOCD_PROCESSORS", mttpArgoCDProcessors)
	pb := envInt(b, envPortBase, 26600) + mttpPortOffset
	for b.Loop() {
		for _, n := range sizes {
			flux := runFluxSide(b, pb, n)
			mttpProgress(n, "Flux", flux)
			siteops := runSiteopsSide(b, pb, n)
			mttpProgress(n, "siteops", siteops)
			recordMTTP(b, n, siteops, flux)
			writeFluxSoFar(b)
		}
	}
}

// writeFluxSoFar writes the sizes measured so far into RESULTS.md when asked (SITEOPS_BENCH_WRITE=1): the
// larger sizes take long enough that a run may be stopped before its end, and TestMain writes only at the end.
func writeFluxSoFar(b *testing.B) {
	if os.Getenv(WriteEnv) != "1" {
		return
	}
	if err := WriteFluxFile(resultsFile, fluxRecorded.FluxReport(Machine(time.Now()))); err != nil {
		b.Fatalf("writing the sizes measured so far: %v", err)
	}
}

// mttpProgress prints a side's figures as soon as it has run (b.Logf would hold them until the end of the
// benchmark), so a run stopped at a larger size still shows the sizes it measured.
func mttpProgress(n int, name string, s mttpSide) {
	fmt.Fprintf(os.Stderr, "mttp: %d apps, %s: %s; %s\n", n, name, s.summary(), s.procs)
}

// recordMTTP records the row of size n.
func recordMTTP(b *testing.B, n int, siteops, flux mttpSide) {
	b.ReportMetric(siteops.wall.Seconds(), fmt.Sprintf("siteops-%d-s", n))
	b.ReportMetric(flux.wall.Seconds(), fmt.Sprintf("flux-%d-s", n))
	published := fluxPublished[n]
	if published == "" {
		published = "none at this size"
	}
	fluxRecorded.Record(Row{
		ID: fmt.Sprintf(mttpIDFormat, thousands(n)),
		Measure: fmt.Sprintf("mean time to production (issue 34): `git push` of %s apps × 4 objects → every "+
			"object Ready", thousands(n)),
		Siteops: "siteops + Argo CD: " + siteops.summary() + "; " + siteops.procs.String(),
		Anchor: fmt.Sprintf("Flux %s: %s; %s; Flux's published figure (v2.9, 16 cores): %s", fluxVersion(b),
			flux.summary(), flux.procs, published),
		Ratio: fmt.Sprintf("wall %s, CPU %.3g, peak RSS %.3g", FormatSpeedup(siteops.wall, flux.wall),
			siteops.procs.cpu().Seconds()/flux.procs.cpu().Seconds(),
			float64(siteops.procs.peak())/float64(flux.procs.peak())),
		Target:  "wall ≤ Flux's on this machine",
		Outcome: Judge(siteops.wall <= flux.wall),
		N:       fmt.Sprintf("%s apps, 1 run per side", thousands(n)),
		Notes: "each side on a fresh local cluster (etcd, kube-apiserver, kcm, scheduler, kwok; Argo CD " +
			argoCDVersion(b) + " for siteops), Flux first; one source repository (base/ with the four objects, " +
			"one overlay per app naming its namespace, namespaces created beforehand) on one git http-backend on " +
			"127.0.0.1; clock from `git push` of the apps' commit; Flux: then the GitRepository and one " +
			"Kustomization per app created (flux-benchmark's fields: interval 60m, prune, wait, timeout 1m; " +
			"concurrency 10 / 20), stop when every Kustomization is Ready at the commit; siteops: then the " +
			"SiteSync created, base/argocd's ApplicationSet (destination the hub, namespace = site) generating " +
			"one Application per site, stop when the SiteSync reports every site Delivered; Argo CD's Ingress " +
			"health set to kstatus' (no ingress controller on either side), its resync 180 s and its cluster " +
			"cache re-list 12 h (its defaults), 25 operation and 50 status processors (its guide's for 1,000 " +
			"Applications); " +
			"status read every 1 s; CPU = user+system of the side's processes and their children over the run; " +
			"peak RSS = the sum of the processes' VmHWM",
	})
}

// summary is the side's wall time and CPU time, peak RSS and stages.
func (s mttpSide) summary() string {
	var st []string
	for _, x := range s.stages {
		st = append(st, x.name+" "+FormatDuration(x.at))
	}
	return fmt.Sprintf("wall %s, CPU %s, peak RSS %s (%s)", FormatDuration(s.wall), FormatDuration(s.procs.cpu()),
		formatMiB(s.procs.peak()), strings.Join(st, ", "))
}

// fluxVersion is the version of the Flux controllers hack/build-bins.sh built (its folder flux-<version>).
func fluxVersion(tb testing.TB) string {
	tb.Helper()
	return "source-controller + kustomize-controller " + strings.TrimPrefix(filepath.Base(fluxDir(tb)), "flux-")
}

// stage is when, from the push, a side first reached a step.
type stage struct {
	name string
	at   time.Duration
}

// stageClock times a side's stages from its start.
type stageClock struct {
	start  time.Time
	stages []stage
	seen   map[string]bool
}

// newStages starts the clock.
func newStages() *stageClock { return &stageClock{start: time.Now(), seen: map[string]bool{}} }

// mark records stage name the first time it is reached.
func (c *stageClock) mark(name string) {
	if !c.seen[name] {
		c.seen[name] = true
		c.stages = append(c.stages, stage{name: name, at: time.Since(c.start)})
	}
}

// since is the time of the last stage reached.
func (c *stageClock) since() time.Duration {
	if len(c.stages) == 0 {
		return 0
	}
	return c.stages[len(c.stages)-1].at
}

// waitTick waits mttpPoll, failing tb with what once timeout has passed since the start.
func (c *stageClock) waitTick(tb testing.TB, timeout time.Duration, what string) {
	tb.Helper()
	if time.Since(c.start) > timeout {
		tb.Fatalf("timed out after %s waiting for %s", timeout, what)
	}
	time.Sleep(mttpPoll)
}
