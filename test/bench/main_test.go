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
	"flag"
	"fmt"
	"io"
	"os"
	"testing"
	"time"
)

// resultsFile is where `make bench` writes the table (go test runs in the package folder).
const resultsFile = "RESULTS.md"

// TestMain runs the tests and benchmarks, then, when benchmarks ran, prints the results table and, with
// SITEOPS_BENCH_WRITE=1 and every benchmark passing, writes it to RESULTS.md. While benchmarking it reads the
// benchmark output (tee of stdout) to turn the result lines of benchmarks that do not record a row
// themselves into rows.
// Started with SITEOPS_BENCH_GROWTH_TASK set, the binary is instead a growth-curve worker: it runs that one
// task (growth_worker_test.go) and exits.
func TestMain(m *testing.M) {
	if task := os.Getenv(growthTaskEnv); task != "" {
		os.Exit(runGrowthWorker(task))
	}
	flag.Parse()
	var tee *stdoutTee
	if f := flag.Lookup("test.bench"); f != nil && f.Value.String() != "" {
		var err error
		if tee, err = teeStdout(); err != nil {
			fmt.Fprintf(os.Stderr, "bench: reading benchmark output: %v\n", err)
		}
	}
	code := m.Run()
	if tee != nil {
		recorded.RecordFromLines(tee.stop())
	}
	os.Exit(report(code))
}

// report prints the table when rows were recorded and writes RESULTS.md when asked; it returns the exit code.
func report(code int) int {
	code = reportHelm(reportFlux(reportScale(code)))
	if recorded.Len() == 0 {
		return code
	}
	out := recorded.Report(Machine(time.Now()))
	fmt.Print("\n" + out)
	if os.Getenv(WriteEnv) != "1" {
		return code
	}
	if code != 0 {
		fmt.Fprintf(os.Stderr, "bench: not writing %s: a test or benchmark failed\n", resultsFile)
		return code
	}
	if err := WriteFile(resultsFile, out); err != nil {
		fmt.Fprintf(os.Stderr, "bench: %v\n", err)
		return 1
	}
	fmt.Printf("bench: wrote %s\n", resultsFile)
	return code
}

// reportScale prints the growth-curve block when its rows were recorded and writes it into RESULTS.md when
// asked; it returns the exit code.
func reportScale(code int) int {
	if scaleRecorded.Len() == 0 {
		return code
	}
	return reportBlock(code, "the growth curve", scaleRecorded.ScaleReport(Machine(time.Now()), growthPlotFile),
		WriteScaleFile)
}

// reportFlux prints the block of the mean time to production beside Flux when its rows were recorded and
// writes it into RESULTS.md when asked; it returns the exit code.
func reportFlux(code int) int {
	if fluxRecorded.Len() == 0 {
		return code
	}
	return reportBlock(code, "the mean time to production beside Flux", fluxRecorded.FluxReport(Machine(time.Now())),
		WriteFluxFile)
}

// reportHelm prints the block of Helm charts beside kustomize --enable-helm when its rows were recorded and writes
// it into RESULTS.md when asked; it returns the exit code.
func reportHelm(code int) int {
	if helmRecorded.Len() == 0 {
		return code
	}
	return reportBlock(code, "the Helm charts", helmRecorded.HelmReport(Machine(time.Now())), WriteHelmFile)
}

// reportBlock prints block (what) and, when asked and nothing failed, writes it into RESULTS.md with write.
func reportBlock(code int, what, block string, write func(path, block string) error) int {
	fmt.Print("\n" + block)
	if os.Getenv(WriteEnv) != "1" || code != 0 {
		return code
	}
	if err := write(resultsFile, block); err != nil {
		fmt.Fprintf(os.Stderr, "bench: %v\n", err)
		return 1
	}
	fmt.Printf("bench: wrote %s into %s\n", what, resultsFile)
	return code
}

// stdoutTee copies everything written to os.Stdout to the real stdout and to a Scanner.
type stdoutTee struct {
	orig    *os.File
	w       *os.File
	scanner Scanner
	done    chan struct{}
}

func teeStdout() (*stdoutTee, error) {
	r, w, err := os.Pipe()
	if err != nil {
		return nil, fmt.Errorf("creating pipe: %w", err)
	}
	t := &stdoutTee{orig: os.Stdout, w: w, done: make(chan struct{})}
	go func() {
		defer close(t.done)
		_, _ = io.Copy(t.orig, io.TeeReader(r, &t.scanner))
		_ = r.Close()
	}()
	os.Stdout = w
	return t, nil
}

// stop restores stdout, drains the pipe and returns the benchmark result lines seen.
func (t *stdoutTee) stop() []Line {
	os.Stdout = t.orig
	_ = t.w.Close()
	<-t.done
	return t.scanner.Lines()
}
