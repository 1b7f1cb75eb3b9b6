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
	"time"
)

// Thresholds of growthTarget.
const (
	growthLargeSites    = 10000
	growthMinSpeedup    = 200
	growthMaxLargeFull  = 30 * time.Second // full render at growthLargeSites (issue 34)
	growthMaxPushP50    = 2 * time.Second
	growthMaxRSS        = 1 << 30
	growthLinearSlack   = 1.25 // per-site full-render time may exceed the smallest size's by this factor (noise)
	growthPlotFile      = "growth.png"
	growthDataFile      = "growth.json"
	growthScaleIDFormat = "P9 · %s sites"
)

// scaleRecorded is the growth curve's own table (`make bench-scale`), written by TestMain.
var scaleRecorded = NewSection()

// recordGrowth records a row per point: into the growth curve's own table when scale (several sizes, `make
// bench-scale`), else as row P9 of the main table.
func recordGrowth(points []growthPoint, scale bool) {
	base := points[0]
	for _, p := range points {
		row := growthRow(p, base)
		if !scale {
			Record(row)
			continue
		}
		row.ID = fmt.Sprintf(growthScaleIDFormat, thousands(p.Sites))
		scaleRecorded.Record(row)
	}
}

// growthRow is p's row; base is the smallest size, the reference of linear growth.
func growthRow(p, base growthPoint) Row {
	inc := p.incrementalWall()
	p50 := Quantile(append([]time.Duration(nil), p.PushToRendered...), 0.5)
	p99 := Quantile(append([]time.Duration(nil), p.PushToRendered...), 0.99)
	peak := max(p.ColdRSS, p.FullRSS, p.IncrementalRSS)
	perSite := p.Full.wall.Seconds() / float64(p.Sites)
	basePerSite := base.Full.wall.Seconds() / float64(base.Sites)
	speedup := p.Full.wall.Seconds() / inc.Seconds()
	ok := perSite <= basePerSite*growthLinearSlack && p50 < growthMaxPushP50 && peak <= growthMaxRSS &&
		(p.Sites < growthLargeSites || speedup >= growthMinSpeedup && p.Full.wall <= growthMaxLargeFull)
	return Row{
		ID: "P9",
		Measure: fmt.Sprintf("growth: full render, one-site incremental Sync, push → rendered commit, %s sites × %d "+
			"resources (gitops.Sync, each workload in its own process)", thousands(p.Sites), p.Resources),
		Siteops: fmt.Sprintf("full render %s (CPU %s, peak RSS %s); one-site Sync %s (CPU %s); push → rendered "+
			"p50 %s, p99 %s; rendered branch pack %s", FormatDuration(p.Full.wall), FormatDuration(p.Full.cpu),
			formatBytes(p.FullRSS), FormatDuration(inc), FormatDuration(Median(cpus(p.Incremental))),
			FormatDuration(p50), FormatDuration(p99), formatBytes(p.PackBytes)),
		Anchor: fmt.Sprintf("kustomize CLI -P 2 on %d sites: %s; scaled linearly to %s sites: %s (scaled, not run)",
			p.CLISample, FormatDuration(p.CLI.wall), thousands(p.Sites), FormatDuration(p.cliScaled())),
		Ratio: fmt.Sprintf("full render vs scaled CLI: %s; full / one-site Sync (P3 at this size): %.0f×; "+
			"per-site full render vs %s sites: %.2f×", FormatSpeedup(p.Full.wall, p.cliScaled()), speedup,
			thousands(base.Sites), perSite/basePerSite),
		Target:  growthTarget,
		Outcome: Judge(ok),
		N: fmt.Sprintf("1 cold + 1 warm full Sync; %d one-site changes; CLI on a %d-site sample",
			len(p.Incremental), p.CLISample),
		Notes: fmt.Sprintf("git http-backend on 127.0.0.1; full render = gitops.Sync without previous state after a "+
			"one-site change, warm caches (fetch, guard and digest, render every site, commit, push); cold first "+
			"Sync (clone, push every file): %s, CPU %s, peak RSS %s; one-site Sync = Sync with the previous "+
			"state in a process that has synced once (its guard results warm), peak RSS %s; push → rendered = "+
			"start of `git push` → Sync returned with the rendered commit pushed (gitops.Sync called directly, "+
			"no webhook or controller); pack = `git pack-objects --revs` of the rendered branch (%d commits); "+
			"peak RSS = the worker's VmHWM; anchor %s",
			FormatDuration(p.Cold.wall), FormatDuration(p.Cold.cpu), formatBytes(p.ColdRSS),
			formatBytes(p.IncrementalRSS), p.RenderedCommits, p.CLIName),
	}
}

// thousands formats n with comma thousands separators (10,000).
func thousands(n int) string {
	s := fmt.Sprint(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

// growthSamples are points as plotted.
func growthSamples(points []growthPoint) []GrowthSample {
	out := make([]GrowthSample, len(points))
	for i, p := range points {
		out[i] = GrowthSample{
			Sites: p.Sites, FullRender: p.Full.wall.Seconds(), OneSiteSync: p.incrementalWall().Seconds(),
			PushToRendered:  Quantile(append([]time.Duration(nil), p.PushToRendered...), 0.5).Seconds(),
			KustomizeScaled: p.cliScaled().Seconds(),
			PeakRSS:         float64(max(p.ColdRSS, p.FullRSS)) / (1 << 20), Pack: float64(p.PackBytes) / (1 << 20),
		}
	}
	return out
}

// writeGrowthCurve writes the curve's data (growth.json) and its plot (growth.png) beside RESULTS.md.
func writeGrowthCurve(points []growthPoint) error {
	samples := growthSamples(points)
	if err := writeJSON(growthDataFile, samples); err != nil {
		return err
	}
	return WriteGrowthPlot(growthPlotFile, samples)
}
