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

	. "github.com/onsi/gomega"
)

// TestFluxBlockSitsAfterTheGrowthCurveAndSurvivesTheOtherWriters: `make bench-flux`'s block goes right after
// the growth curve's block, is replaced in place on the next run, and `make bench` and `make bench-scale`
// rewriting theirs keep it and the analysis.
func TestFluxBlockSitsAfterTheGrowthCurveAndSurvivesTheOtherWriters(t *testing.T) {
	g := NewWithT(t)
	path := filepath.Join(t.TempDir(), "RESULTS.md")
	main := NewResults()
	main.Record(Row{ID: "P2", Siteops: "table figure"})
	g.Expect(WriteFile(path, main.Report("m"))).To(Succeed())
	scale := NewSection()
	scale.Record(Row{ID: "P9 · 100 sites", Siteops: "curve"})
	g.Expect(WriteScaleFile(path, scale.ScaleReport("m", ""))).To(Succeed())
	written, err := os.ReadFile(path)
	g.Expect(err).NotTo(HaveOccurred())
	analysis := "\n## Analysis\n\nText.\n"
	g.Expect(os.WriteFile(path, append(written, analysis...), 0o644)).To(Succeed())

	for _, figure := range []string{"first run", "second run"} {
		flux := NewSection()
		flux.Record(Row{ID: "P17 · 100 apps", Siteops: figure})
		g.Expect(WriteFluxFile(path, flux.FluxReport("m"))).To(Succeed())
	}
	g.Expect(WriteScaleFile(path, scale.ScaleReport("m", ""))).To(Succeed())
	g.Expect(WriteFile(path, main.Report("m"))).To(Succeed())

	doc, err := os.ReadFile(path)
	g.Expect(err).NotTo(HaveOccurred())
	s := string(doc)
	g.Expect(strings.Count(s, fluxBeginMarker)).To(Equal(1))
	g.Expect(s).To(ContainSubstring("second run"))
	g.Expect(s).NotTo(ContainSubstring("first run"))
	g.Expect(strings.Index(s, scaleEndMarker)).To(BeNumerically("<", strings.Index(s, fluxBeginMarker)))
	g.Expect(s).To(HaveSuffix(analysis))
}
