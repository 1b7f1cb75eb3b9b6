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
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	. "github.com/onsi/gomega"
)

func TestWriteFileReplacesTheGeneratedBlockAndKeepsTheAnalysis(t *testing.T) {
	g := NewWithT(t)
	path := filepath.Join(t.TempDir(), "RESULTS.md")
	first := NewResults()
	first.Record(Row{ID: "P2", Siteops: "old figure"})
	g.Expect(WriteFile(path, first.Report("machine one"))).To(Succeed())
	written, err := os.ReadFile(path)
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(string(written)).To(HavePrefix("# siteops benchmarks\n"))
	analysis := "\n## Analysis\n\nThe bottleneck is X.\n"
	g.Expect(os.WriteFile(path, append(written, analysis...), 0o644)).To(Succeed())

	second := NewResults()
	second.Record(Row{ID: "P2", Siteops: "new figure"})
	g.Expect(WriteFile(path, second.Report("machine two"))).To(Succeed())

	doc, err := os.ReadFile(path)
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(string(doc)).To(HavePrefix("# siteops benchmarks\n"))
	g.Expect(string(doc)).To(ContainSubstring("new figure"))
	g.Expect(string(doc)).To(ContainSubstring("Machine: machine two"))
	g.Expect(string(doc)).NotTo(ContainSubstring("old figure"))
	g.Expect(string(doc)).NotTo(ContainSubstring("machine one"))
	g.Expect(string(doc)).To(HaveSuffix(analysis))
	g.Expect(strings.Count(string(doc), beginMarker)).To(Equal(1))
}

func TestSpliceIntoAFileWithoutMarkersKeepsItsTitleAndText(t *testing.T) {
	g := NewWithT(t)
	report := NewResults().Report("m")

	doc := Splice("# Results\n\nOlder notes.\n", report)

	g.Expect(doc).To(HavePrefix("# Results\n\n" + beginMarker))
	g.Expect(doc).To(HaveSuffix(endMarker + "\nOlder notes.\n"))
}

func TestMachineLineNamesCPUsMemoryGoAndDate(t *testing.T) {
	g := NewWithT(t)
	now := time.Date(2026, 11, 30, 5, 40, 0, 0, time.UTC)

	line := Machine(now)

	g.Expect(line).To(MatchRegexp(`^nproc [0-9]+, .+, .+ RAM, go[0-9.]+`))
	g.Expect(line).To(HaveSuffix("; 2026-11-30 05:40 UTC"))
	g.Expect(cpuModel([]byte("processor\t: 0\nmodel name\t: AMD EPYC 9J14\nflags\t: x\n"))).To(Equal("AMD EPYC 9J14"))
	kib, ok := memTotalKiB([]byte("MemFree: 1 kB\nMemTotal:       24683620 kB\n"))
	g.Expect(ok).To(BeTrue())
	g.Expect(kib).To(BeEquivalentTo(24683620))
}
