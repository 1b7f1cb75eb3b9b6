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
	"strings"
	"testing"

	. "github.com/onsi/gomega"
)

// scan feeds output to a Scanner in chunks of size n, as a pipe would.
func scan(output string, n int) []Line {
	var s Scanner
	for i := 0; i < len(output); i += n {
		_, _ = s.Write([]byte(output[i:min(i+n, len(output))]))
	}
	return s.Lines()
}

func TestScannerReadsResultLines(t *testing.T) {
	tests := []struct {
		name   string
		output string
		want   []Line
	}{
		{
			name:   "name and result on one line",
			output: "goos: linux\nBenchmarkA-2   \t       3\t  1200 ns/op\t  4.5 p99-ms\nPASS\n",
			want:   []Line{{Name: "BenchmarkA", N: 3, Metrics: map[string]float64{"ns/op": 1200, "p99-ms": 4.5}}},
		},
		{
			name: "output printed by the benchmark splits name and result",
			output: "BenchmarkGuestbookFailover-2   \tguestbook failover over 50 failovers\n" +
				"       1\t9000 ns/op\t  12.5 p50-ms\t  40 p99-ms\t  50.00 failovers\n",
			want: []Line{{Name: "BenchmarkGuestbookFailover", N: 1,
				Metrics: map[string]float64{"ns/op": 9000, "p50-ms": 12.5, "p99-ms": 40, "failovers": 50}}},
		},
		{
			name: "chatty output and sub-benchmarks",
			output: "=== RUN   BenchmarkB\nBenchmarkB\nBenchmarkB/sub-2\nBenchmarkB/sub-2         \t       1\t  7 ns/op\n" +
				"--- BENCH: BenchmarkB\n",
			want: []Line{{Name: "BenchmarkB/sub", N: 1, Metrics: map[string]float64{"ns/op": 7}}},
		},
		{
			name:   "lines that are not results",
			output: "ok  \tpkg\t1.2s\n| P2 | 1 | 2 |\n    12 apples\nBenchmarkC-2 \t--- FAIL: BenchmarkC\n",
			want:   nil,
		},
		{
			name:   "last line without a newline",
			output: "BenchmarkD \t 2\t 5 ns/op",
			want:   []Line{{Name: "BenchmarkD", N: 2, Metrics: map[string]float64{"ns/op": 5}}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := NewWithT(t)
			for _, chunk := range []int{1, 7, len(tt.output)} {
				g.Expect(scan(tt.output, chunk)).To(Equal(tt.want), "chunks of %d bytes", chunk)
			}
		})
	}
}

func TestGuestbookFailoverResultBecomesRowP5(t *testing.T) {
	g := NewWithT(t)
	res := NewResults()
	lines := scan("BenchmarkGuestbookFailover-2 \tguestbook failover ...\n"+
		"  1\t9000 ns/op\t  12.5 p50-ms\t  612 p99-ms\t  50.00 failovers\n", 64)

	res.RecordFromLines(lines)

	var p5 Row
	for _, r := range res.Rows() {
		if r.ID == "P5" {
			p5 = r
		}
	}
	g.Expect(p5.Siteops).To(Equal("p50 12.5 ms, p99 612 ms"))
	g.Expect(p5.Outcome).To(Equal(Missed), "p99 over 500 ms misses the target")
	g.Expect(p5.N).To(Equal("50 failovers"))
	g.Expect(p5.Target).To(Equal("p99 < 500 ms"))
}

func TestRowRecordedByTheBenchmarkWinsOverItsOutput(t *testing.T) {
	g := NewWithT(t)
	res := NewResults()
	res.Record(Row{ID: "P5", Siteops: "recorded directly"})

	res.RecordFromLines(scan("BenchmarkGuestbookFailover-2 \t 1\t 9 ns/op\t 1 p50-ms\t 2 p99-ms\n", 16))

	var p5 Row
	for _, r := range res.Rows() {
		if r.ID == "P5" {
			p5 = r
		}
	}
	g.Expect(p5.Siteops).To(Equal("recorded directly"))
	g.Expect(strings.Contains(res.Table(), "p99 2 ms")).To(BeFalse())
}
