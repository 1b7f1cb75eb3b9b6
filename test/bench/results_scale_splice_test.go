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

// TestScaleBlockSitsAfterTheTableAndSurvivesBothWriters: `make bench-scale`'s block goes right after the
// generated table, is replaced in place on the next scale run, lists only its own rows, and `make bench`
// rewriting the table keeps it and the analysis.
func TestScaleBlockSitsAfterTheTableAndSurvivesBothWriters(t *testing.T) {
	g := NewWithT(t)
	path := filepath.Join(t.TempDir(), "RESULTS.md")
	main := NewResults()
	main.Record(Row{ID: "P2", Siteops: "table figure"})
	g.Expect(WriteFile(path, main.Report("m"))).To(Succeed())
	written, err := os.ReadFile(path)
	g.Expect(err).NotTo(HaveOccurred())
	analysis := "\n## Analysis\n\nText.\n"
	g.Expect(os.WriteFile(path, append(written, analysis...), 0o644)).To(Succeed())

	for _, figure := range []string{"first curve", "second curve"} {
		scale := NewSection()
		scale.Record(Row{ID: "P9 · 1,000 sites", Siteops: "small"})
		scale.Record(Row{ID: "P9 · 10,000 sites", Siteops: figure})
		scale.Record(Row{ID: "P9 · 100 sites", Siteops: "smallest"})
		rows := scale.Rows()
		g.Expect(rows).To(HaveLen(3), "a section lists only its rows")
		g.Expect(rows[2].ID).To(Equal("P9 · 100 sites"), "a section keeps the order rows were recorded in")
		g.Expect(WriteScaleFile(path, scale.ScaleReport("m", "growth.png"))).To(Succeed())
	}
	main.Record(Row{ID: "P2", Siteops: "new table figure"})
	g.Expect(WriteFile(path, main.Report("m"))).To(Succeed())

	doc, err := os.ReadFile(path)
	g.Expect(err).NotTo(HaveOccurred())
	s := string(doc)
	g.Expect(strings.Count(s, scaleBeginMarker)).To(Equal(1))
	g.Expect(s).To(ContainSubstring("second curve"))
	g.Expect(s).NotTo(ContainSubstring("first curve"))
	g.Expect(s).To(ContainSubstring("new table figure"))
	g.Expect(s).To(ContainSubstring("![growth curve](growth.png)"))
	g.Expect(strings.Index(s, endMarker)).To(BeNumerically("<", strings.Index(s, scaleBeginMarker)))
	g.Expect(s).To(HaveSuffix(analysis))
}
