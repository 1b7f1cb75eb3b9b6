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
	"regexp"
	"strconv"
	"strings"
	"sync"
)

// Line is one result line of `go test -bench` output.
type Line struct {
	// Name is the benchmark's full name without the -GOMAXPROCS suffix, e.g. BenchmarkGuestbookFailover.
	Name string
	// N is the number of iterations.
	N int
	// Metrics maps each unit (ns/op, p99-ms, …) to its value.
	Metrics map[string]float64
}

// procsSuffix is the -GOMAXPROCS suffix go test appends to a benchmark's name.
var procsSuffix = regexp.MustCompile(`-[0-9]+$`)

// Scanner is an io.Writer that reads `go test -bench` output as it streams and keeps the result lines.
// A benchmark that prints while it runs splits its name from its result line, so the scanner remembers the
// last benchmark name seen at the start of a line. Safe for concurrent use.
type Scanner struct {
	mu      sync.Mutex
	partial []byte
	current string
	lines   []Line
}

// Write consumes output; it never fails.
func (s *Scanner) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.partial = append(s.partial, p...)
	for {
		i := bytes.IndexByte(s.partial, '\n')
		if i < 0 {
			break
		}
		s.line(string(s.partial[:i]))
		s.partial = s.partial[i+1:]
	}
	return len(p), nil
}

// Lines returns the result lines read so far, in order.
func (s *Scanner) Lines() []Line {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.partial) > 0 {
		s.line(string(s.partial))
		s.partial = nil
	}
	return append([]Line(nil), s.lines...)
}

func (s *Scanner) line(l string) {
	rest := l
	if strings.HasPrefix(l, "Benchmark") {
		name, after, _ := strings.Cut(strings.TrimRight(l, " \t"), "\t")
		s.current = procsSuffix.ReplaceAllString(strings.TrimSpace(name), "")
		rest = after
	}
	if s.current == "" {
		return
	}
	if bl, ok := parseResult(rest); ok {
		bl.Name = s.current
		s.lines = append(s.lines, bl)
	}
}

// parseResult reads "<N> <value> <unit> [<value> <unit>…]" with at least ns/op among the units.
func parseResult(s string) (Line, bool) {
	f := strings.Fields(s)
	if len(f) < 3 || len(f)%2 == 0 {
		return Line{}, false
	}
	n, err := strconv.Atoi(f[0])
	if err != nil {
		return Line{}, false
	}
	bl := Line{N: n, Metrics: map[string]float64{}}
	for i := 1; i+1 < len(f); i += 2 {
		v, err := strconv.ParseFloat(f[i], 64)
		if err != nil {
			return Line{}, false
		}
		bl.Metrics[f[i+1]] = v
	}
	if _, ok := bl.Metrics["ns/op"]; !ok {
		return Line{}, false
	}
	return bl, true
}

// rowAdapters turn the result line of a benchmark that does not Record its row itself into that row.
var rowAdapters = map[string]func(Line) (Row, bool){
	"BenchmarkGuestbookFailover": guestbookFailoverRow,
}

// guestbookFailoverRow is row P5 from BenchmarkGuestbookFailover's p50-ms, p99-ms and failovers metrics.
func guestbookFailoverRow(bl Line) (Row, bool) {
	p50, ok50 := bl.Metrics["p50-ms"]
	p99, ok99 := bl.Metrics["p99-ms"]
	if !ok50 || !ok99 {
		return Row{}, false
	}
	n := "—"
	if f, ok := bl.Metrics["failovers"]; ok {
		n = fmt.Sprintf("%.0f failovers", f)
	}
	return Row{
		ID: "P5", Siteops: fmt.Sprintf("p50 %.3g ms, p99 %.3g ms", p50, p99), Anchor: "— (no anchor)",
		Ratio: "—", Outcome: Judge(p99 < 500), N: n,
		Notes: "BenchmarkGuestbookFailover: envtest apiserver, Guestbook controller in a manager, 3 pods",
	}, true
}

// RecordFromLines records the rows of the adapted benchmarks found in lines (the last line of a benchmark
// wins), unless a benchmark already recorded that row itself.
func (res *Results) RecordFromLines(lines []Line) {
	for _, bl := range lines {
		adapt, ok := rowAdapters[bl.Name]
		if !ok {
			continue
		}
		row, ok := adapt(bl)
		if !ok {
			continue
		}
		res.mu.Lock()
		_, direct := res.rows[row.ID]
		res.mu.Unlock()
		if !direct || res.adapted[row.ID] {
			res.Record(row)
			res.mu.Lock()
			res.adapted[row.ID] = true
			res.mu.Unlock()
		}
	}
}
