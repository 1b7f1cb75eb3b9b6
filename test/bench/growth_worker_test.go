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
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/siteops/siteops/gitops"
	"github.com/siteops/siteops/test/gitserver"
)

// growthTaskEnv names the task file of a growth worker: the benchmark binary re-executed to run one measured
// Sync workload in a fresh process, so its peak RSS is that workload's alone.
const growthTaskEnv = "SITEOPS_BENCH_GROWTH_TASK"

// Modes of a growth worker.
const (
	// growthFull runs one gitops.Sync without previous state: every site is rendered.
	growthFull = "full"
	// growthIncremental runs an untimed Sync with the previous state (as a running controller has its guard
	// results), then Rounds times: commit a one-site change, push it, Sync with the previous state.
	growthIncremental = "incremental"
)

// growthTask is what the parent asks a worker to do.
type growthTask struct {
	Mode     string
	URL      string // source repository; the rendered branch lives in it
	WorkDir  string // gitops.Sync's caches, kept between the workers of one size
	Clone    string // working copy to commit and push one-site changes from (incremental)
	Previous string // file holding the sites of the last Sync (incremental)
	Result   string // file the worker writes its growthOutcome to
	Sites    int
	Rounds   int
	FirstRev int // revision number of the first change (site-values revisions stay unique)
}

// growthOutcome is what a worker measured.
type growthOutcome struct {
	Wall, CPU time.Duration // of the full Sync, or summed over the incremental rounds
	// PeakRSS is the worker's VmHWM at the end, in bytes.
	PeakRSS int64
	// SyncWalls, SyncCPUs and PushToRendered are per incremental round: the Sync call, and the time from the
	// start of `git push` to Sync's return with the rendered commit pushed.
	SyncWalls, SyncCPUs, PushToRendered []time.Duration
	Sites                               []gitops.SiteState
}

// runGrowthWorker runs the task in file path and returns the exit code.
func runGrowthWorker(path string) int {
	if err := growthWork(path); err != nil {
		fmt.Fprintf(os.Stderr, "growth worker: %v\n", err)
		return 1
	}
	return 0
}

func growthWork(path string) error {
	var task growthTask
	if err := readJSON(path, &task); err != nil {
		return err
	}
	var out growthOutcome
	var err error
	switch task.Mode {
	case growthFull:
		out, err = growthFullSync(task)
	case growthIncremental:
		out, err = growthIncrementalSyncs(task)
	default:
		err = fmt.Errorf("unknown mode %q", task.Mode)
	}
	if err != nil {
		return err
	}
	if out.PeakRSS, err = peakRSS(); err != nil {
		return err
	}
	return writeJSON(task.Result, out)
}

// growthFullSync renders every site with one Sync without previous state.
func growthFullSync(task growthTask) (growthOutcome, error) {
	opts := task.syncOptions(nil)
	sy, builds := countingSyncer()
	stopProfile, err := startGrowthProfile(task.Sites)
	if err != nil {
		return growthOutcome{}, err
	}
	start, cpu, renders := time.Now(), selfCPU(), builds.Load()
	res, err := sy.Sync(context.Background(), opts)
	wall, used := time.Since(start), selfCPU()-cpu
	if perr := stopProfile(); perr != nil {
		return growthOutcome{}, perr
	}
	if err != nil {
		return growthOutcome{}, fmt.Errorf("full Sync: %w", err)
	}
	if n := builds.Load() - renders; n != int64(task.Sites) {
		return growthOutcome{}, fmt.Errorf("full Sync ran %d builds, want %d", n, task.Sites)
	}
	if err := allReady(res); err != nil {
		return growthOutcome{}, err
	}
	return growthOutcome{Wall: wall, CPU: used, Sites: res.Sites}, nil
}

// growthIncrementalSyncs measures task.Rounds one-site changes, each pushed and then synced incrementally.
func growthIncrementalSyncs(task growthTask) (growthOutcome, error) {
	var sites []gitops.SiteState
	if err := readJSON(task.Previous, &sites); err != nil {
		return growthOutcome{}, err
	}
	// A running controller has guarded every site before: this untimed Sync (nothing changed) does that.
	sy, builds := countingSyncer()
	res, err := sy.Sync(context.Background(), task.syncOptions(sites))
	if err != nil {
		return growthOutcome{}, fmt.Errorf("warm-up Sync: %w", err)
	}
	wt := &gitserver.Worktree{Dir: task.Clone, Branch: gitserver.DefaultBranch}
	var out growthOutcome
	for r := range task.Rounds {
		site := (r*37 + 1) % task.Sites
		wt.Write("overlays/"+siteName(site)+"/site-values.yaml", siteValues(site, task.FirstRev+r))
		sha := wt.Commit(fmt.Sprintf("%s: revision %d", siteName(site), task.FirstRev+r))
		pushStart := time.Now()
		wt.Push()
		start, cpu, renders := time.Now(), selfCPU(), builds.Load()
		next, err := sy.Sync(context.Background(), task.syncOptions(res.Sites))
		end, used := time.Now(), selfCPU()-cpu
		if err != nil {
			return out, fmt.Errorf("incremental Sync %d: %w", r+1, err)
		}
		if n := builds.Load() - renders; n != 1 || !next.Pushed || next.SourceRevision != sha {
			return out, fmt.Errorf("incremental Sync %d ran %d builds (pushed: %t, source %s), want 1 and a push of %s",
				r+1, n, next.Pushed, next.SourceRevision, sha)
		}
		if err := allReady(next); err != nil {
			return out, err
		}
		res = next
		out.SyncWalls = append(out.SyncWalls, end.Sub(start))
		out.SyncCPUs = append(out.SyncCPUs, used)
		out.PushToRendered = append(out.PushToRendered, end.Sub(pushStart))
		out.Wall, out.CPU = out.Wall+end.Sub(start), out.CPU+used
	}
	out.Sites = res.Sites
	return out, nil
}

// countingSyncer is a Syncer, as a process makes one, and the count of the kustomize builds it runs.
func countingSyncer() (*gitops.Syncer, *atomic.Int64) {
	builds := &atomic.Int64{}
	return gitops.NewSyncer(gitops.SyncerOptions{OnRender: func(string) { builds.Add(1) }}), builds
}

// syncOptions are the Sync options of the task, with previous (nil: none) as the sites' previous state.
func (task growthTask) syncOptions(previous []gitops.SiteState) gitops.SyncOptions {
	o := gitops.SyncOptions{
		Source:  gitops.SourceSpec{URL: task.URL, Ref: gitserver.DefaultBranch},
		WorkDir: task.WorkDir,
	}
	if previous != nil {
		o.Previous = make(map[string]gitops.SiteState, len(previous))
		for _, s := range previous {
			o.Previous[s.Name] = s
		}
	}
	return o
}

// allReady fails unless every site of res is Ready.
func allReady(res gitops.SyncResult) error {
	for _, s := range res.Sites {
		if !s.Ready {
			return fmt.Errorf("site %s is not ready: %s", s.Name, s.Message)
		}
	}
	return nil
}

// selfCPU is the CPU time (user + system) this process has used so far; 0 when getrusage fails.
func selfCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// peakRSS is this process's peak resident set size (VmHWM), in bytes.
func peakRSS() (int64, error) {
	f, err := os.Open("/proc/self/status")
	if err != nil {
		return 0, fmt.Errorf("reading peak RSS: %w", err)
	}
	defer func() { _ = f.Close() }()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if fields := strings.Fields(sc.Text()); len(fields) >= 2 && fields[0] == "VmHWM:" {
			kib, err := strconv.ParseInt(fields[1], 10, 64)
			if err != nil {
				return 0, fmt.Errorf("parsing VmHWM %q: %w", fields[1], err)
			}
			return kib << 10, nil
		}
	}
	return 0, fmt.Errorf("no VmHWM in /proc/self/status")
}

// runGrowthTask runs task in a fresh process of this benchmark binary and returns what it measured.
func runGrowthTask(tb testing.TB, task growthTask) growthOutcome {
	tb.Helper()
	dir := tb.TempDir()
	taskFile := dir + "/task.json"
	task.Result = dir + "/result.json"
	if err := writeJSON(taskFile, task); err != nil {
		tb.Fatal(err)
	}
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), growthTaskEnv+"="+taskFile)
	if out, err := cmd.CombinedOutput(); err != nil {
		tb.Fatalf("growth worker (%s, %d sites): %v\n%s", task.Mode, task.Sites, err, out)
	}
	var out growthOutcome
	if err := readJSON(task.Result, &out); err != nil {
		tb.Fatal(err)
	}
	return out
}

func readJSON(path string, v any) error {
	b, err := os.ReadFile(path)
	if err != nil {
		return fmt.Errorf("reading %s: %w", path, err)
	}
	if err := json.Unmarshal(b, v); err != nil {
		return fmt.Errorf("parsing %s: %w", path, err)
	}
	return nil
}

func writeJSON(path string, v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("encoding %s: %w", path, err)
	}
	if err := os.WriteFile(path, b, 0o644); err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	return nil
}
