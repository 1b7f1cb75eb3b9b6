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
	"slices"
	"strings"
	"testing"
	"time"

	. "github.com/onsi/gomega"
)

func TestTableListsEveryCatalogueRowAndNotRunForUnmeasuredOnes(t *testing.T) {
	g := NewWithT(t)
	res := NewResults()
	res.Record(Row{ID: "P2", Siteops: "1.5 s", Anchor: "9 s", Ratio: "0.167", Outcome: Met, N: "100 sites"})

	rows := res.Rows()

	g.Expect(rows).To(HaveLen(len(catalogue)))
	for i, r := range rows {
		g.Expect(r.ID).To(Equal(catalogue[i].ID))
		if r.ID == "P2" {
			g.Expect(r.Siteops).To(Equal("1.5 s"))
			g.Expect(r.Target).To(Equal("≥ 5× faster"), "empty fields come from the catalogue")
			continue
		}
		g.Expect(r.Siteops).To(Equal("not run"), r.ID)
		g.Expect(r.Anchor).To(Equal("not run"), r.ID)
		g.Expect(r.Outcome).To(Equal(NotJudged), r.ID)
	}
	table := res.Table()
	g.Expect(strings.Split(strings.TrimSpace(table), "\n")).To(HaveLen(2 + len(catalogue)))
	g.Expect(table).To(
		ContainSubstring(
			"| P2 | full render, 100 sites × 20 resources | 1.5 s | 9 s | 0.167 | ≥ 5× faster | yes | 100 sites |"))
}

func TestRecordKeepsTheLastRowOfAnIDAndListsUnknownIDsAfterTheCatalogue(t *testing.T) {
	g := NewWithT(t)
	res := NewResults()
	res.Record(Row{ID: "P9b", Siteops: "x"})
	res.Record(Row{ID: "P3", Siteops: "first"})
	res.Record(Row{ID: "P3", Siteops: "second", Outcome: Missed})
	res.Record(Row{ID: "P9a", Siteops: "y"})

	rows := res.Rows()

	g.Expect(res.Len()).To(Equal(3))
	g.Expect(rows).To(HaveLen(len(catalogue) + 2))
	p3 := slices.IndexFunc(rows, func(r Row) bool { return r.ID == "P3" })
	g.Expect(p3).To(BeNumerically(">=", 0))
	g.Expect(rows[p3].Siteops).To(Equal("second"))
	g.Expect(rows[p3].Outcome.String()).To(Equal("**no**"))
	g.Expect(rows[len(rows)-2].ID).To(Equal("P9a"))
	g.Expect(rows[len(rows)-1].ID).To(Equal("P9b"))
}

func TestTableCellsEscapePipesAndLineBreaks(t *testing.T) {
	g := NewWithT(t)
	res := NewResults()
	res.Record(Row{ID: "P4", Siteops: "a | b", Notes: "line one\nline two"})

	line := ""
	for _, l := range strings.Split(res.Table(), "\n") {
		if strings.HasPrefix(l, "| P4 ") {
			line = l
		}
	}

	g.Expect(line).To(ContainSubstring(`a \| b`))
	g.Expect(line).To(ContainSubstring("line one line two"))
	g.Expect(strings.Count(line, " | ")).To(Equal(8), "nine cells")
}

func TestFormatting(t *testing.T) {
	tests := []struct {
		name string
		got  string
		want string
	}{
		{"milliseconds", FormatDuration(12345 * time.Microsecond), "12.3 ms"},
		{"seconds", FormatDuration(2500 * time.Millisecond), "2.5 s"},
		{"faster", FormatSpeedup(time.Second, 8*time.Second), "0.125 (8× faster)"},
		{"slower", FormatSpeedup(3*time.Second, time.Second), "3 (3× slower)"},
		{"no anchor", FormatSpeedup(time.Second, 0), "—"},
		{"outcome met", Judge(true).String(), "yes"},
		{"outcome missed", Judge(false).String(), "**no**"},
		{"not judged", NotJudged.String(), "—"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			NewWithT(t).Expect(tt.got).To(Equal(tt.want))
		})
	}
}

func TestQuantileIsNearestRank(t *testing.T) {
	ms := func(vs ...int) []time.Duration {
		out := make([]time.Duration, len(vs))
		for i, v := range vs {
			out[i] = time.Duration(v) * time.Millisecond
		}
		return out
	}
	twenty := ms(20, 19, 18, 17, 16, 15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1)
	tests := []struct {
		name string
		in   []time.Duration
		q    float64
		want time.Duration
	}{
		{"empty", nil, 0.5, 0},
		{"one", ms(7), 0.99, 7 * time.Millisecond},
		{"median of odd", ms(3, 1, 2), 0.5, 2 * time.Millisecond},
		{"median of even takes the lower", ms(4, 1, 3, 2), 0.5, 2 * time.Millisecond},
		{"p50 of 20", twenty, 0.5, 10 * time.Millisecond},
		{"p99 of 20 is the maximum", twenty, 0.99, 20 * time.Millisecond},
		{"p90 of 20", twenty, 0.9, 18 * time.Millisecond},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			NewWithT(t).Expect(Quantile(tt.in, tt.q)).To(Equal(tt.want))
		})
	}
}
