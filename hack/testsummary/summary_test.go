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

package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// sampleModule has a package whose tests pass, fail with t.Fatalf after logging, and fail in a subtest; one whose
// test binary panics; and one that does not build.
var sampleModule = map[string]string{
	"go.mod": "module sample\n\ngo 1.24\n",
	"ok/ok_test.go": `package ok
import "testing"
func TestQuiet(t *testing.T) { t.Log("passing noise") }
func TestWaits(t *testing.T) {
	t.Log("manager log line 1")
	t.Fatalf("timed out waiting for %s;\nlast seen: %s", "Synced/Healthy", "OutOfSync/Missing")
}
func TestParent(t *testing.T) {
	t.Run("child", func(t *testing.T) { t.Errorf("child broke") })
}
`,
	"panics/p_test.go": `package panics
import "testing"
func TestBoom(t *testing.T) { go func() { panic("boom from a goroutine") }(); select {} }
`,
	"broken/b_test.go": "package broken\nimport \"testing\"\nfunc TestX(t *testing.T) { undefined() }\n",
}

func goTestJSON(t *testing.T) []byte {
	t.Helper()
	dir := t.TempDir()
	for name, text := range sampleModule {
		path := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cmd := exec.Command("go", "test", "-json", "-count=1", "./...")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOWORK=off", "GOFLAGS=")
	out, err := cmd.Output()
	if err == nil {
		t.Fatalf("go test of the sample module passed; it has failing tests:\n%s", out)
	}
	return out
}

func TestSummaryEndsWithWhatFailed(t *testing.T) {
	events := goTestJSON(t)
	for _, verbose := range []bool{false, true} {
		var out bytes.Buffer
		failures, err := run(bytes.NewReader(events), &out, verbose)
		if err != nil {
			t.Fatal(err)
		}
		text := out.String()
		if !strings.HasSuffix(text, failures) {
			t.Errorf("verbose=%v: the output does not end with what run returned:\n%s", verbose, failures)
		}
		head, tail, found := strings.Cut(text, "=== What failed: each failed test's last log entries\n")
		if !found {
			t.Fatalf("verbose=%v: no summary:\n%s", verbose, text)
		}
		for _, want := range []string{
			"--- FAIL: TestWaits (sample/ok), its last log entries:\n", "manager log line 1\n",
			"timed out waiting for Synced/Healthy;\n", "last seen: OutOfSync/Missing\n",
			"--- FAIL: TestParent/child (sample/ok), its last log entries:\n", "child broke\n",
			"--- FAIL: TestBoom (sample/panics), unfinished when its package failed, its last lines:\n",
			"panic: boom from a goroutine\n",
			"--- FAIL: package sample/broken, its last lines:\n", "undefined: undefined",
		} {
			if !strings.Contains(tail, want) {
				t.Errorf("verbose=%v: summary lacks %q:\n%s", verbose, want, tail)
			}
		}
		for _, unwanted := range []string{"passing noise", "TestQuiet", "--- FAIL: TestParent (sample/ok)"} {
			if strings.Contains(tail, unwanted) {
				t.Errorf("verbose=%v: summary has %q, which did not fail:\n%s", verbose, unwanted, tail)
			}
		}
		// The text before the summary is go test's: a failing test's log always, a passing test's only with -v.
		if !strings.Contains(head, "manager log line 1") || !strings.Contains(head, "FAIL\tsample/ok") ||
			!strings.Contains(head, "panic: boom from a goroutine") {
			t.Errorf("verbose=%v: the log lacks a failing test's output or its package's result:\n%s", verbose, head)
		}
		if got := strings.Contains(head, "passing noise"); got != verbose {
			t.Errorf("verbose=%v: a passing test's log printed: %v\n%s", verbose, got, head)
		}
	}
}

func TestNoSummaryWhenEverythingPassed(t *testing.T) {
	in := `{"Action":"run","Package":"p","Test":"TestA"}
{"Action":"output","Package":"p","Test":"TestA","Output":"=== RUN   TestA\n"}
{"Action":"pass","Package":"p","Test":"TestA"}
{"Action":"output","Package":"p","Output":"PASS\n"}
{"Action":"output","Package":"p","Output":"ok  \tp\t0.1s\n"}
{"Action":"pass","Package":"p"}
`
	var out bytes.Buffer
	failures, err := run(strings.NewReader(in), &out, false)
	if err != nil {
		t.Fatal(err)
	}
	if out.String() != "ok  \tp\t0.1s\n" || failures != "" {
		t.Fatalf("got %q and failures %q, want only the package's result line", out.String(), failures)
	}
}
