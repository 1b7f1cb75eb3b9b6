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

// Command testsummary reads `go test -json` on standard input and prints it as go test prints text: with -v every
// line as it comes, without it only the output of the tests that fail and each package's result line. When the
// input ends it prints, last, every failed test with the lines it reported through t.Error or t.Fatal, so the
// tail of a long log (a CI summary, an end-to-end run with manager logs) says what failed and why.
//
// Its exit status is its own (0 unless it cannot read or write); under `set -o pipefail` go test's status wins.
package main

import (
	"flag"
	"fmt"
	"io"
	"os"
)

func main() {
	verbose := flag.Bool("v", false, "print every test's output as it comes, as go test -v does")
	also := flag.String("failures", "", "a file to append what failed to as well, for a caller to print last")
	flag.Parse()
	failures, err := run(os.Stdin, os.Stdout, *verbose)
	if err == nil && failures != "" && *also != "" {
		err = appendFile(*also, failures)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "testsummary:", err)
		os.Exit(2)
	}
}

// run copies in's test events to out as text, then writes what failed and returns it.
func run(in io.Reader, out io.Writer, verbose bool) (string, error) {
	s := newSummary(out, verbose)
	if err := s.read(in); err != nil {
		return "", err
	}
	failures := s.failures()
	s.print(failures)
	return failures, s.err
}

func appendFile(path, text string) error {
	f, err := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		return fmt.Errorf("keeping what failed: %w", err)
	}
	if _, err := f.WriteString(text); err != nil {
		_ = f.Close()
		return fmt.Errorf("keeping what failed: %w", err)
	}
	return f.Close()
}
