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
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"regexp"
	"slices"
	"strings"
)

// event is one line of `go test -json` (cmd/test2json's TestEvent), the fields this command reads.
type event struct {
	Action  string
	Package string
	Test    string
	Output  string
	// ImportPath names the package a build-output event is about; FailedBuild, the one whose build failed a
	// package.
	ImportPath  string
	FailedBuild string
}

// key names one test of one package; Test is "" for the package itself.
type key struct{ pkg, test string }

// failure is a failed test and its last log entries, or its last lines when it never ended (a panic, a
// timeout).
type failure struct {
	key
	entries    []string
	unfinished bool
}

const (
	// tailLines is how many of a failed package's own last lines the summary shows when no test of it failed:
	// a panic, a timeout, a failing TestMain or build.
	tailLines = 20
	// lastEntries is how many of a failed test's last log entries (t.Log, t.Error, t.Fatal) the summary shows,
	// entryLines how many lines of each, entryWidth how many bytes of a line.
	lastEntries, entryLines, entryWidth = 12, 4, 240
)

// entryStart matches the first line of a test's log entry: go test indents it by 4 and names file and line.
var entryStart = regexp.MustCompile(`^    [^ ]+\.go:[0-9]+: `)

// summary turns test events into text and remembers the failures.
type summary struct {
	out     io.Writer
	verbose bool
	// held is each running test's output so far, printed only if it fails (without -v).
	held map[key][]string
	// entries is each test's last log entries; tail is each test's and each package's own last lines.
	entries map[key][]string
	tail    map[key][]string
	running map[key]bool
	failed  []failure
	err     error
}

func newSummary(out io.Writer, verbose bool) *summary {
	return &summary{out: out, verbose: verbose, held: map[key][]string{}, entries: map[key][]string{},
		tail: map[key][]string{}, running: map[key]bool{}}
}

// read handles every event of in; a line that is not an event is printed as it is (go test's own messages).
func (s *summary) read(in io.Reader) error {
	sc := bufio.NewScanner(in)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	for sc.Scan() && s.err == nil {
		var e event
		if err := json.Unmarshal(sc.Bytes(), &e); err != nil || e.Action == "" {
			s.print(sc.Text() + "\n")
			continue
		}
		s.handle(e)
	}
	if err := sc.Err(); err != nil {
		return fmt.Errorf("reading the test events: %w", err)
	}
	return s.err
}

func (s *summary) handle(e event) {
	k := key{e.Package, e.Test}
	switch e.Action {
	case "run":
		s.running[k] = true
	case "output":
		s.output(k, e)
	case "build-output":
		s.remember(key{pkg: e.ImportPath}, e.Output)
		s.print(e.Output)
	case "pass", "skip":
		s.end(k)
	case "fail":
		if e.FailedBuild != "" {
			s.tail[k] = s.tail[key{pkg: e.FailedBuild}]
		}
		if k.test == "" {
			s.unfinished(k.pkg)
		}
		s.fail(k, failure{key: k, entries: s.entries[k]})
	}
}

func (s *summary) output(k key, e event) {
	s.remember(k, e.Output)
	if k.test == "" {
		// Without -v go test prints no PASS line of its own for a package that passed.
		if s.verbose || e.Output != "PASS\n" {
			s.print(e.Output)
		}
		return
	}
	s.addEntryLine(k, e.Output)
	if s.verbose {
		s.print(e.Output)
		return
	}
	s.held[k] = append(s.held[k], e.Output)
}

// addEntryLine keeps line when it starts one of k's log entries or continues its last one, within the limits.
func (s *summary) addEntryLine(k key, line string) {
	if len(line) > entryWidth {
		line = line[:entryWidth] + "…\n"
	}
	es := s.entries[k]
	switch {
	case entryStart.MatchString(line):
		es = append(es, line)
		s.entries[k] = es[max(0, len(es)-lastEntries):]
	case len(es) > 0 && strings.HasPrefix(line, "        "):
		last := es[len(es)-1]
		if n := strings.Count(last, "\n"); n < entryLines {
			es[len(es)-1] = last + line
		} else if n == entryLines {
			es[len(es)-1] = last + "        …\n"
		}
	}
}

// remember keeps line among k's last lines.
func (s *summary) remember(k key, line string) {
	tail := append(s.tail[k], line)
	s.tail[k] = tail[max(0, len(tail)-tailLines):]
}

// unfinished fails the tests of pkg that were still running when it failed: they panicked or timed out.
func (s *summary) unfinished(pkg string) {
	var names []string
	for k := range s.running {
		if k.pkg == pkg {
			names = append(names, k.test)
		}
	}
	slices.Sort(names)
	for _, name := range names {
		k := key{pkg, name}
		s.fail(k, failure{key: k, entries: s.tail[k], unfinished: true})
	}
}

// fail prints what k held back and records f.
func (s *summary) fail(k key, f failure) {
	for _, line := range s.held[k] {
		s.print(line)
	}
	s.end(k)
	s.failed = append(s.failed, f)
}

// end forgets what k held back.
func (s *summary) end(k key) {
	delete(s.held, k)
	delete(s.running, k)
}

// failures is each failed test's last log entries (a parent whose subtest failed is left to the subtest), then,
// for a package none of whose tests failed, the package's last lines; "" when nothing failed.
func (s *summary) failures() string {
	explained, parents := map[string]bool{}, map[key]bool{}
	for _, f := range s.failed {
		for i, r := range f.test {
			if r == '/' {
				parents[key{f.pkg, f.test[:i]}] = true
			}
		}
	}
	var b strings.Builder
	for _, f := range s.failed {
		if f.test != "" && !parents[f.key] {
			explained[f.pkg] = true
			what := "its last log entries"
			if f.unfinished {
				what = "unfinished when its package failed, its last lines"
			}
			fmt.Fprintf(&b, "--- FAIL: %s (%s), %s:\n%s", f.test, f.pkg, what, strings.Join(f.entries, ""))
		}
	}
	for _, f := range s.failed {
		if f.test == "" && !explained[f.pkg] {
			fmt.Fprintf(&b, "--- FAIL: package %s, its last lines:\n%s", f.pkg, strings.Join(s.tail[f.key], ""))
		}
	}
	if b.Len() == 0 {
		return ""
	}
	return "\n=== What failed: each failed test's last log entries\n" + b.String()
}

func (s *summary) print(text string) {
	if s.err == nil {
		_, s.err = io.WriteString(s.out, text)
	}
}
