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

// Package bench holds siteops' side-by-side benchmarks (issue 7): each benchmark measures siteops and the
// tool users would otherwise run on the same machine in the same run, and records one row of the results
// table. `make bench` runs them with SITEOPS_BENCH_WRITE=1, which writes the table to RESULTS.md.
package bench

import (
	"fmt"
	"math"
	"sort"
	"strings"
	"sync"
	"time"
)

// Outcome says whether a row met its target.
type Outcome int

// Outcomes of a row.
const (
	// NotJudged is a row without a measured target (not run, or nothing to compare).
	NotJudged Outcome = iota
	// Met is a row whose siteops figure meets the target.
	Met
	// Missed is a row whose siteops figure misses the target.
	Missed
)

// String is the outcome as a table cell.
func (v Outcome) String() string {
	switch v {
	case Met:
		return "yes"
	case Missed:
		return "**no**"
	default:
		return "—"
	}
}

// Judge is Met when ok, Missed otherwise.
func Judge(ok bool) Outcome {
	if ok {
		return Met
	}
	return Missed
}

// Row is one line of the results table. Figures are formatted with their unit (FormatDuration).
type Row struct {
	ID      string // P1…P10
	Measure string
	Siteops string // siteops' figure
	Anchor  string // the anchor's figure, with what the anchor is
	Ratio   string // siteops / anchor, with how many times better
	Target  string
	Outcome Outcome
	N       string // sample size, e.g. "100 sites × 3 rounds"
	Notes   string
}

// notRun is the figure of a row that was not measured in this run.
const notRun = "not run"

// growthTarget is row P9's target (issue 18; the 10,000-site full render bound is issue 34's).
const growthTarget = "full render ≤ linear in sites; at 10,000 sites: full render ≤ 30 s, one-site Sync ≥ 200× " +
	"cheaper than the full render, push → rendered commit p50 < 2 s, peak RSS ≤ 1 GiB"

// catalogue is every row of issue 7 and the rows later issues added, in table order, with its measure and
// target; Record fills the figures.
var catalogue = []Row{
	{ID: "P1", Measure: "CronJob: scheduled time → Job create request, p50/p99; CPU, RSS, API requests per Job",
		Target: "lag p99 ≤ 1 s, ≤ 3 requests/Job, CPU and RSS ≤ 1.0×, 0 missed, 0 duplicates",
		Notes:  "anchor: kube-controller-manager running only cronjob-controller, same CronJobs"},
	{ID: "P1-1000", Measure: "P1 at 1,000 CronJobs per side: scheduled time → Job create request, p50/p99; CPU, RSS, " +
		"API requests per Job", Target: "lag p99 ≤ 5 s, 0 missed, 0 duplicates",
		Notes: "anchor: kube-controller-manager running only cronjob-controller, same CronJobs"},
	{ID: "P2", Measure: "full render, 100 sites × 20 resources", Target: "≥ 5× faster",
		Notes: "anchor: pinned `kustomize build` CLI per site, sequential and `-P 2`"},
	{ID: "P2-CLI", Measure: "full render, 100 sites × 20 resources, `siteops render` CLI", Target: "≥ 25× faster",
		Notes: "anchor: pinned `kustomize build` CLI per site, `-P 2`, same run"},
	{ID: "P3", Measure: "re-render after a one-site change (gitops.Sync)",
		Target: "— (retired by issue 34: bound by the Git server's own requests at 100 sites; P9's one-site " +
			"Sync at 10,000 sites is the target)",
		Notes: "anchor: siteops full re-render"},
	{ID: "P4", Measure: "`git push` → rendered commit on the target branch, via the push receiver, 100 sites",
		Target: "p50 < 1 s", Notes: "anchor: Flux 1 m poll / Argo CD 3 m (quoted, not run)"},
	{ID: "P5", Measure: "Guestbook failover: active pod NotReady → active Service re-pointed", Target: "p99 < 500 ms"},
	{ID: "P6", Measure: "`kubectl argo rollouts promote` returns → first write by the new colour; last write by the " +
		"old colour → first by the new; p50/p99 (issue 16)",
		Target: "p99 < 250 ms (both), 0 with two writers",
		Notes: "local cluster with Argo Rollouts: the manager a blue/green Rollout (active + preview Services, " +
			"autoPromotionEnabled false, scaleDownDelaySeconds 3), each pod a real bin/manager process " +
			"(test/podproc: started when kwok binds the pod, /readyz → Ready, SIGTERM when the pod goes); each " +
			"promote: a pod-template annotation changes, the Rollout pauses with the new colour Ready in standby mode, " +
			"then `kubectl argo rollouts promote` (clock: when it returns); a Guestbook's size changes every 50 ms (each " +
			"change sent on its tick, at most 2 in flight) so the leader always has a write to make; write times " +
			"from the processes' \"api write\" log lines (when each write was sent; same host clock); two writers = a pair of " +
			"processes whose write spans overlap; anchors: client-go's elector " +
			"with ReleaseOnCancel, retry 500 ms (leadership moves at the old colour's scale-down, so the 3 s delay " +
			"is in its figures) and with controller-runtime's defaults (lease 15 s, renew 10 s, retry 2 s, no " +
			"ReleaseOnCancel)"},
	{ID: "P7", Measure: "manager RSS with 5k CronJobs + 20k Jobs in cache", Target: "≤ 1.0×",
		Notes: "anchor: kube-controller-manager (CronJob + Job controllers) on the same objects"},
	{ID: "P8", Measure: "CronJob `spread: 30s` (issue 19): peak apiserver writes per second; lag from each run's " +
		"own start time (scheduled + stagger offset), p50/p99",
		Target: "peak ≤ 0.5× the unspread side's, spread lag p99 ≤ 1 s, 0 missed, 0 duplicates",
		Notes:  "anchor: the same CronJobs without spread, same manager, same run"},
	{ID: "P9", Measure: "growth: full render, one-site incremental Sync, push → rendered commit, 100 sites × 20 " +
		"resources (gitops.Sync, each workload in its own process)",
		Target: growthTarget,
		Notes:  "anchor: kustomize CLI -P 2 on a 100-site sample; `make bench-scale`: 1,000 and 10,000 sites"},
	{ID: "P10", Measure: "`git push` of a base change → every site of the local fleet Delivered (Synced and " +
		"Healthy at its rendered revision), p50/p99 (issue 15)",
		Target: "p50 < 5 s", Notes: "anchor: Argo CD's default 3-minute poll (quoted, not run)"},
	{ID: "P11", Measure: "`git push` of a base change → both sites Delivered, 2 waves (soak 0s) vs no waves, " +
		"p50/p99 (issue 17)", Target: "— (reported: the time waves add, soak aside)",
		Notes: "envtest, SiteSync controller in a manager, simulated Argo CD"},
	{ID: "P12", Measure: "wave-1 site's Application turns Degraded → SiteSync rollout Halted, p50/p99 (issue 17)",
		Target: "< 5 s", Notes: "envtest, SiteSync controller in a manager, simulated Argo CD"},
	{ID: "P13", Measure: "`git push` of a base change → both sites of the local fleet Delivered, 2 waves, wave 1 " +
		"verified by an Argo Rollouts AnalysisRun vs the same waves without analysis, p50/p99 (issue 31)",
		Target: "— (reported: the time analysis adds, the analysis interval excluded)"},
	{ID: "P14", Measure: "wave 1's failing measurement answered → SiteSync rollout Halted, p50/p99 (issue 31)",
		Target: "< 5 s"},
	{ID: "P15", Measure: "dashboard Rollout view, 1,000 sites in 2 waves, headless Chromium: page load → every cell " +
		"shown; status change → the cell updated in the open page; p50/p99 (issue 33)",
		Target: "load p99 < 1 s, update p99 < 1 s", Notes: "envtest apiserver, internal/dashboard, chromedp"},
	{ID: "P16", Measure: "validation + policy (issue 32): full render of P9's repository, 100 and 1,000 sites × 20 " +
		"resources, render alone vs render + validation + policy (CPU time, median)",
		Target: "≤ 1.30× the render alone", Notes: "anchor: the same render with validation and policy off, same run"},
}

// Results collects the rows measured in one run; safe for concurrent use.
type Results struct {
	mu sync.Mutex
	// catalogue is the rows listed even when not run, and the defaults of their fields.
	catalogue []Row
	rows      map[string]Row
	order     []string // IDs in the order first recorded
	// adapted marks rows recorded from benchmark output (RecordFromLines) rather than by the benchmark.
	adapted map[string]bool
}

// NewResults returns an empty collection of the catalogue's rows.
func NewResults() *Results {
	return &Results{catalogue: catalogue, rows: map[string]Row{}, adapted: map[string]bool{}}
}

// NewSection returns an empty collection of rows outside the catalogue (a table of its own, e.g. `make
// bench-scale`'s): only the rows recorded are listed.
func NewSection() *Results { return &Results{rows: map[string]Row{}, adapted: map[string]bool{}} }

// recorded is the collection of this test binary, written by TestMain.
var recorded = NewResults()

// Record stores the row of this run's collection (see Results.Record).
func Record(r Row) { recorded.Record(r) }

// Record stores r, replacing an earlier row with the same ID (a benchmark run again with a larger b.N
// records its last, largest run). Empty Measure, Target and Notes are taken from the catalogue.
func (res *Results) Record(r Row) {
	for _, c := range res.catalogue {
		if c.ID != r.ID {
			continue
		}
		if r.Measure == "" {
			r.Measure = c.Measure
		}
		if r.Target == "" {
			r.Target = c.Target
		}
		if r.Notes == "" {
			r.Notes = c.Notes
		}
	}
	res.mu.Lock()
	defer res.mu.Unlock()
	if _, seen := res.rows[r.ID]; !seen {
		res.order = append(res.order, r.ID)
	}
	res.rows[r.ID] = r
}

// Len is the number of rows recorded.
func (res *Results) Len() int {
	res.mu.Lock()
	defer res.mu.Unlock()
	return len(res.rows)
}

// Rows returns every catalogue row, measured or "not run", followed by rows outside the catalogue sorted by
// ID (in the order recorded, for a NewSection).
func (res *Results) Rows() []Row {
	res.mu.Lock()
	defer res.mu.Unlock()
	var out []Row
	known := map[string]bool{}
	for _, c := range res.catalogue {
		known[c.ID] = true
		if r, ok := res.rows[c.ID]; ok {
			out = append(out, r)
			continue
		}
		c.Siteops, c.Anchor, c.Ratio, c.N = notRun, notRun, "—", "—"
		out = append(out, c)
	}
	var extra []string
	for id := range res.rows {
		if !known[id] {
			extra = append(extra, id)
		}
	}
	if res.catalogue != nil {
		sort.Strings(extra)
	} else {
		extra = res.order // a section lists its rows as recorded (e.g. by size)
	}
	for _, id := range extra {
		out = append(out, res.rows[id])
	}
	return out
}

// Table renders the rows as a markdown table.
func (res *Results) Table() string {
	var b strings.Builder
	b.WriteString("| id | measure | siteops | anchor | ratio | target | met | N | notes |\n")
	b.WriteString("|---|---|---|---|---|---|---|---|---|\n")
	for _, r := range res.Rows() {
		cells := []string{r.ID, r.Measure, r.Siteops, r.Anchor, r.Ratio, r.Target, r.Outcome.String(), r.N, r.Notes}
		for i, c := range cells {
			cells[i] = cell(c)
		}
		b.WriteString("| " + strings.Join(cells, " | ") + " |\n")
	}
	return b.String()
}

// cell escapes a table cell: pipes and line breaks would break the row.
func cell(s string) string {
	s = strings.ReplaceAll(s, "|", `\|`)
	s = strings.ReplaceAll(s, "\n", " ")
	if s == "" {
		return "—"
	}
	return s
}

// FormatDuration formats d with three significant digits in ms below 1 s, in s above.
func FormatDuration(d time.Duration) string {
	if d < time.Second {
		return fmt.Sprintf("%.3g ms", float64(d)/float64(time.Millisecond))
	}
	return fmt.Sprintf("%.3g s", d.Seconds())
}

// FormatSpeedup formats the ratio siteops/anchor of two durations, and how many times faster siteops is.
func FormatSpeedup(siteops, anchor time.Duration) string {
	if siteops <= 0 || anchor <= 0 {
		return "—"
	}
	ratio := siteops.Seconds() / anchor.Seconds()
	if ratio <= 1 {
		return fmt.Sprintf("%.3g (%.3g× faster)", ratio, 1/ratio)
	}
	return fmt.Sprintf("%.3g (%.3g× slower)", ratio, ratio)
}

// Quantile is the q-quantile (0 < q ≤ 1, nearest rank) of durations, which it sorts; 0 when empty.
func Quantile(durations []time.Duration, q float64) time.Duration {
	if len(durations) == 0 {
		return 0
	}
	sort.Slice(durations, func(i, j int) bool { return durations[i] < durations[j] })
	rank := int(math.Ceil(q * float64(len(durations))))
	return durations[min(max(rank, 1), len(durations))-1]
}

// Median is Quantile(durations, 0.5).
func Median(durations []time.Duration) time.Duration { return Quantile(durations, 0.5) }
