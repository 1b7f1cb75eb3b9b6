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
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/client"

	gitopsv1alpha1 "github.com/siteops/siteops/apis/gitops/v1alpha1"
)

// P13's and P14's knobs: pushes per side and halts [10]. Their fleet runs at the bench port base + 200, clear
// of P10's.
const (
	envAnalysisPushes  = "SITEOPS_BENCH_ANALYSIS_PUSHES"
	analysisPortOffset = 200
)

// errorRateMetric is the AnalysisTemplate of P13 and P14: one web measurement (count 1, so no interval) of
// the error rate the benchmark's endpoint serves, which must be below 5%.
const errorRateMetric = `apiVersion: argoproj.io/v1alpha1
kind: AnalysisTemplate
metadata: {name: error-rate, namespace: bench-fleet}
spec:
  args: [{name: site}, {name: endpoint}]
  metrics:
  - name: error-rate
    count: 1
    failureLimit: 0
    successCondition: result < 0.05
    provider:
      web:
        url: "{{args.endpoint}}/?site={{args.site}}"
        jsonPath: "{$.errorRate}"
`

// errorRateServer is the endpoint the metric reads, on 127.0.0.1: it serves the rate set last and keeps when
// it last answered with a failing one.
type errorRateServer struct {
	url         string
	mu          sync.Mutex
	failing     bool
	lastFailing time.Time
}

func startErrorRateServer(tb testing.TB) *errorRateServer {
	tb.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	mustDo(tb, err)
	e := &errorRateServer{url: "http://" + l.Addr().String()}
	srv := &http.Server{ReadHeaderTimeout: 5 * time.Second, Handler: http.HandlerFunc(e.serve)}
	go func() { _ = srv.Serve(l) }()
	tb.Cleanup(func() { _ = srv.Close() })
	return e
}

func (e *errorRateServer) serve(w http.ResponseWriter, _ *http.Request) {
	e.mu.Lock()
	defer e.mu.Unlock()
	rate := "0.01"
	if e.failing {
		rate = "0.5"
	}
	w.Header().Set("Content-Type", "application/json")
	_, _ = fmt.Fprintf(w, `{"errorRate": %s}`, rate)
	if f, ok := w.(http.Flusher); ok {
		f.Flush()
	}
	if e.failing {
		e.lastFailing = time.Now()
	}
}

// set makes the endpoint serve a failing rate or a good one, and forgets the last failing answer.
func (e *errorRateServer) set(failing bool) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.failing, e.lastFailing = failing, time.Time{}
}

// failedAt is when the endpoint last answered with a failing rate (zero if it has not since set).
func (e *errorRateServer) failedAt() time.Time {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.lastFailing
}

// BenchmarkWavesAnalysis is rows P13 and P14 (issue 31) on the local fleet of P10, whose hub also runs the Argo
// Rollouts controller: its analysis controller runs the AnalysisRuns siteops creates. The SiteSync has waves
// [first: site-a, soak 0s] and site-b in the implicit last wave.
//
// P13: `git push` of a base change → both sites Delivered, with wave first verified by errorRateMetric against
// the same waves without analysis; the pushes alternate between the two (the SiteSync's spec changed, untimed,
// before each). P14: with the endpoint serving a failing rate, a base change's wave-first run fails: the time
// from the endpoint's failing answer to status.rollout.phase Halted; each halt is followed, untimed, by a
// good change that the whole fleet gets. SITEOPS_BENCH_ANALYSIS_PUSHES (default 10) samples of each.
func BenchmarkWavesAnalysis(b *testing.B) {
	n := envInt(b, envAnalysisPushes, 10)
	endpoint := startErrorRateServer(b)
	analysis := &gitopsv1alpha1.WaveAnalysis{
		Templates: []gitopsv1alpha1.AnalysisTemplateRef{{TemplateName: "error-rate"}},
		Args:      []gitopsv1alpha1.AnalysisArgument{{Name: "endpoint", Value: endpoint.url}},
	}
	var plainD, analysisD, haltD []time.Duration
	for b.Loop() {
		f := newBenchFleetWith(b, benchFleetOptions{
			portOffset: analysisPortOffset, components: "kwok rollouts argocd",
			rollout: gitopsv1alpha1.RolloutSpec{Waves: []gitopsv1alpha1.Wave{
				{Name: "first", Sites: []string{fleetBenchSites[0]}, Soak: &metav1.Duration{}}}},
			before: func(f *benchFleet) {
				file := filepath.Join(b.TempDir(), "analysis-template.yaml")
				mustDo(b, os.WriteFile(file, []byte(errorRateMetric), 0o644))
				if out, err := f.bc.kubectl("apply", "-f", file); err != nil {
					b.Fatalf("applying the AnalysisTemplate: %v\n%s", err, out)
				}
			},
		})
		release := 2
		for i := range n {
			for _, a := range []*gitopsv1alpha1.WaveAnalysis{nil, analysis} {
				f.setWaveAnalysis(b, a)
				time.Sleep(fleetSettleBefore)
				s := f.pushBaseAndWait(b, release)
				release++
				if a == nil {
					plainD = append(plainD, s.healthy)
				} else {
					analysisD = append(analysisD, s.healthy)
					f.checkRunSucceeded(b, runGit(b, f.work, "rev-parse", "HEAD"))
				}
				b.Logf("push %d, analysis %t: every site Delivered %s", i+1, a != nil, FormatDuration(s.healthy))
			}
		}
		for i := range n {
			d := f.failedToHalted(b, endpoint, release)
			haltD = append(haltD, d)
			b.Logf("halt %d: %s", i+1, FormatDuration(d))
			endpoint.set(false)
			time.Sleep(fleetSettleBefore)
			f.pushBaseAndWait(b, release+1)
			release += 2
		}
		f.checkClusters(b, release-1) // with waves, each site has a rendered commit of its own
	}
	recordAnalysis(b, plainD, analysisD, haltD)
}

// setWaveAnalysis sets wave first's analysis (nil: none) and waits until the manager has read the change.
func (f *benchFleet) setWaveAnalysis(tb testing.TB, a *gitopsv1alpha1.WaveAnalysis) {
	tb.Helper()
	ctx := context.Background()
	mustDo(tb, f.bc.c.Get(ctx, client.ObjectKeyFromObject(&f.ss), &f.ss))
	base := f.ss.DeepCopy()
	f.ss.Spec.Waves[0].Analysis = a
	mustDo(tb, f.bc.c.Patch(ctx, &f.ss, client.MergeFrom(base)))
	gen := f.ss.Generation
	f.poll(tb, time.Minute, "the manager to observe the waves", func(ss *gitopsv1alpha1.SiteSync) bool {
		return ss.Status.ObservedGeneration >= gen
	})
}

// checkRunSucceeded checks, untimed, that wave first of source revision sha was verified by one Successful
// AnalysisRun, which Argo Rollouts' analysis controller ran.
func (f *benchFleet) checkRunSucceeded(tb testing.TB, sha string) {
	tb.Helper()
	runs := &unstructured.UnstructuredList{}
	runs.SetGroupVersionKind(schema.GroupVersionKind{Group: "argoproj.io", Version: "v1alpha1",
		Kind: "AnalysisRunList"})
	mustDo(tb, f.bc.c.List(context.Background(), runs, client.InNamespace(f.ss.Namespace),
		client.MatchingLabels{gitopsv1alpha1.LabelRevision: sha}))
	var phases []string
	for _, r := range runs.Items {
		phase, _, _ := unstructured.NestedString(r.Object, "status", "phase")
		phases = append(phases, phase)
	}
	if len(phases) != 1 || phases[0] != "Successful" {
		tb.Fatalf("revision %s: AnalysisRuns with phases %v, want one Successful", sha, phases)
	}
}

// failedToHalted pushes base release n with the endpoint failing and returns the time from its last failing
// answer to the rollout's phase Halted.
func (f *benchFleet) failedToHalted(tb testing.TB, e *errorRateServer, n int) time.Duration {
	tb.Helper()
	e.set(true)
	time.Sleep(fleetSettleBefore)
	for rel, content := range fleetBenchSource(n) {
		if strings.HasPrefix(rel, "base/") {
			mustDo(tb, os.WriteFile(filepath.Join(f.work, rel), []byte(content), 0o644))
		}
	}
	runGit(tb, f.work, "commit", "-qam", fmt.Sprintf("base: release %d, failing its analysis", n))
	sha := runGit(tb, f.work, "rev-parse", "HEAD")
	runGit(tb, f.work, "push", "-q", f.bare, "main")
	f.deliveries++
	sendSignedPush(tb, f.hookURL, "file://"+f.bare, sha, f.deliveries)
	var halted time.Time
	f.poll(tb, 2*time.Minute, "the rollout of "+sha+" Halted", func(ss *gitopsv1alpha1.SiteSync) bool {
		r := ss.Status.Rollout
		if r == nil || r.Revision != sha || r.Phase != gitopsv1alpha1.RolloutHalted {
			return false
		}
		halted = time.Now()
		return true
	})
	failed := e.failedAt()
	if failed.IsZero() {
		tb.Fatalf("the rollout of %s halted, but its analysis never read the failing rate", sha)
	}
	return halted.Sub(failed)
}

// recordAnalysis records rows P13 and P14.
func recordAnalysis(b *testing.B, plainD, analysisD, haltD []time.Duration) {
	pp50, pp99 := Quantile(plainD, 0.5), Quantile(plainD, 0.99)
	ap50, ap99 := Quantile(analysisD, 0.5), Quantile(analysisD, 0.99)
	hp50, hp99 := Quantile(haltD, 0.5), Quantile(haltD, 0.99)
	b.ReportMetric((ap50-pp50).Seconds()*1000, "analysis-added-p50-ms")
	b.ReportMetric(hp99.Seconds()*1000, "failed-to-halted-p99-ms")
	fleet := fmt.Sprintf("local fleet of P10 (hub with Argo CD %s, 2 site clusters) plus the Argo Rollouts "+
		"controller on the hub; one bin/manager; AnalysisTemplate: one web metric, count 1, successCondition "+
		"result < 0.05, reading an endpoint the benchmark serves on 127.0.0.1", argoCDVersion(b))
	Record(Row{
		ID: "P13",
		Siteops: fmt.Sprintf("with analysis: p50 %s, p99 %s; added at p50: %s", FormatDuration(ap50),
			FormatDuration(ap99), signed(ap50-pp50)),
		Anchor:  fmt.Sprintf("same waves, no analysis: p50 %s, p99 %s", FormatDuration(pp50), FormatDuration(pp99)),
		Ratio:   fmt.Sprintf("p50 %.2f", ap50.Seconds()/pp50.Seconds()),
		Outcome: NotJudged,
		N:       fmt.Sprintf("%d pushes per side, alternating", len(analysisD)),
		Notes: fmt.Sprintf("%s; clock from `git push` of a base change (+ signed push event) to every site "+
			"Delivered at its new rendered commit (polled every 50 ms); the SiteSync's wave first gets or loses "+
			"its analysis, untimed, before each push; %s untimed between pushes", fleet,
			FormatDuration(fleetSettleBefore)),
	})
	Record(Row{
		ID:      "P14",
		Siteops: fmt.Sprintf("p50 %s, p99 %s", FormatDuration(hp50), FormatDuration(hp99)),
		Anchor:  "—",
		Ratio:   "—",
		Outcome: Judge(hp99 < 5*time.Second),
		N:       fmt.Sprintf("%d halts", len(haltD)),
		Notes: fmt.Sprintf("%s; clock from the endpoint's last answer with a 50%% error rate to status.rollout."+
			"phase Halted at the pushed revision (polled every 50 ms); onFailure Halt", fleet),
	})
}

// signed formats d with its sign: a difference of two medians may be negative in a noisy run.
func signed(d time.Duration) string {
	if d < 0 {
		return "−" + FormatDuration(-d)
	}
	return "+" + FormatDuration(d)
}
