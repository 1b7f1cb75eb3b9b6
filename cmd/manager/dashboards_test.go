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
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/siteops/siteops/controllers/sitesync"
	"github.com/siteops/siteops/test/testenv"
)

// recorder is a Registerer that keeps what is registered with it, so a test can describe every series.
type recorder struct {
	prometheus.Registerer
	collectors []prometheus.Collector
}

func (r *recorder) Register(c prometheus.Collector) error {
	r.collectors = append(r.collectors, c)
	return r.Registerer.Register(c)
}

var (
	descName   = regexp.MustCompile(`fqName: "([^"]+)"`)
	descLabels = regexp.MustCompile(`variableLabels: \{([^}]*)\}`)
	seriesRef  = regexp.MustCompile(`\b(siteops_[a-z0-9_]+|leader_election_master_status)\b`)
	selector   = regexp.MustCompile(`\{([^}]*)\}`)
	matcher    = regexp.MustCompile(`([a-zA-Z_][a-zA-Z0-9_]*)\s*(=~|!~|!=|=)`)
	grouping   = regexp.MustCompile(`\b(?:by|without)\s*\(([^)]*)\)`)
)

// exportedSeries maps each series name the manager exports to its label names: every collector newMetrics
// registers and the fleet and ledger collectors, described; histograms add their _bucket, _sum and _count
// series, the ledger's summaries their quantile label and _sum and _count series.
func exportedSeries(t *testing.T) map[string][]string {
	t.Helper()
	rec := &recorder{Registerer: prometheus.NewRegistry()}
	if _, err := newMetrics(rec); err != nil {
		t.Fatal(err)
	}
	rec.collectors = append(rec.collectors, sitesync.NewFleetCollector(nil), sitesync.NewLedgerCollector(nil, nil, nil))
	out := map[string][]string{}
	for _, c := range rec.collectors {
		_, histogram := c.(*prometheus.HistogramVec)
		if _, ok := c.(prometheus.Histogram); ok {
			histogram = true
		}
		_, ledger := c.(*sitesync.LedgerCollector)
		ch := make(chan *prometheus.Desc, 16)
		c.Describe(ch)
		close(ch)
		for d := range ch {
			name := descName.FindStringSubmatch(d.String())[1]
			var labels []string
			if m := descLabels.FindStringSubmatch(d.String()); m != nil && m[1] != "" {
				labels = strings.Split(m[1], ",")
			}
			out[name] = labels
			if histogram {
				out[name+"_bucket"] = append(slices.Clone(labels), "le")
				out[name+"_sum"], out[name+"_count"] = labels, labels
			}
			if ledger && strings.HasSuffix(name, "_seconds") && len(labels) > 0 { // the ledger's summaries
				out[name] = append(slices.Clone(labels), "quantile")
				out[name+"_sum"], out[name+"_count"] = labels, labels
			}
		}
	}
	return out
}

// dashboard is the part of a Grafana dashboard's JSON the test reads.
type dashboard struct {
	UID    string `json:"uid"`
	Title  string `json:"title"`
	Panels []struct {
		Title   string `json:"title"`
		Targets []struct {
			Expr string `json:"expr"`
		} `json:"targets"`
	} `json:"panels"`
}

// TestEveryDashboardQueryNamesASeriesTheManagerExports reads the Grafana dashboards of
// base/components/grafana: every panel has a query, every query names at least one siteops series, every
// series it names is one the manager exports, and every label it selects or groups by is one of that series'
// labels (or one Prometheus adds to each target: pod, instance, job).
func TestEveryDashboardQueryNamesASeriesTheManagerExports(t *testing.T) {
	exported := exportedSeries(t)
	files, err := filepath.Glob(filepath.Join(testenv.RepoRoot(), "base/components/grafana/dashboards/*.json"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no dashboards found (%v)", err)
	}
	uids := map[string]string{}
	for _, f := range files {
		raw, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var d dashboard
		if err := json.Unmarshal(raw, &d); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		name := filepath.Base(f)
		if d.UID == "" || d.Title == "" || len(d.Panels) == 0 {
			t.Errorf("%s: a dashboard needs a uid, a title and panels", name)
		}
		if other, ok := uids[d.UID]; ok {
			t.Errorf("%s: uid %q is also %s's", name, d.UID, other)
		}
		uids[d.UID] = name
		for _, p := range d.Panels {
			if len(p.Targets) == 0 {
				t.Errorf("%s, panel %q: no query", name, p.Title)
			}
			for _, q := range p.Targets {
				checkQuery(t, exported, name+", panel "+p.Title, q.Expr)
			}
		}
	}
}

// checkQuery reports what in expr is not exported.
func checkQuery(t *testing.T, exported map[string][]string, where, expr string) {
	t.Helper()
	names := seriesRef.FindAllString(expr, -1)
	if len(names) == 0 {
		t.Errorf("%s: %q names no siteops series", where, expr)
	}
	labels := []string{"pod", "instance", "job"}
	for _, n := range names {
		l, ok := exported[n]
		if !ok {
			t.Errorf("%s: %q names %s, which the manager does not export", where, expr, n)
		}
		labels = append(labels, l...)
	}
	var used []string
	for _, s := range selector.FindAllStringSubmatch(expr, -1) {
		for _, m := range matcher.FindAllStringSubmatch(s[1], -1) {
			used = append(used, m[1])
		}
	}
	for _, g := range grouping.FindAllStringSubmatch(expr, -1) {
		for _, l := range strings.Split(g[1], ",") {
			used = append(used, strings.TrimSpace(l))
		}
	}
	for _, l := range used {
		if !slices.Contains(labels, l) {
			t.Errorf("%s: %q uses the label %s, which %v do not have", where, expr, l, names)
		}
	}
}
