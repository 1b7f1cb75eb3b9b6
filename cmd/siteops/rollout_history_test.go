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
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"

	. "github.com/onsi/gomega"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	gitopsv1alpha1 "github.com/siteops/siteops/apis/gitops/v1alpha1"
)

// Revisions of the history tests.
const (
	histRev1 = "1111111111111111111111111111111111111111"
	histRev2 = "2222222222222222222222222222222222222222"
	histC1   = "c111111111111111111111111111111111111111"
	histC2   = "c222222222222222222222222222222222222222"
)

func minute(m int) *metav1.Time {
	v := metav1.NewTime(time.Date(2026, 3, 2, 10, m, 0, 0, time.UTC))
	return &v
}

// twoRecords is a halted revision over a complete one, newest first.
func twoRecords() []gitopsv1alpha1.RolloutRecord {
	return []gitopsv1alpha1.RolloutRecord{
		{Revision: histRev2, StartedAt: minute(20), EndedAt: minute(33), Outcome: gitopsv1alpha1.OutcomeHalted,
			RenderedCommits: []string{histC2},
			Message:         "halted at wave one: analysis run sites-one-2222222222 Failed",
			Waves: []gitopsv1alpha1.WaveRecord{{Name: "one", StartedAt: minute(20), Analysis: &gitopsv1alpha1.AnalysisRecord{
				Run: "sites-one-2222222222", Phase: "Failed", Metric: "error-rate", Message: "measured 0.42 (Failed)"}}}},
		{Revision: histRev1, StartedAt: minute(0), EndedAt: minute(13), Outcome: gitopsv1alpha1.OutcomeComplete,
			RenderedCommits: []string{histC1, histC2[:39] + "1"},
			Waves: []gitopsv1alpha1.WaveRecord{
				{Name: "one", StartedAt: minute(0), FinishedAt: minute(11), FreezeOverriddenBy: "kubectl-annotate",
					FreezeOverrideReason: "INC-7 hotfix", Analysis: &gitopsv1alpha1.AnalysisRecord{
						Run: "sites-one-1111111111", Phase: "Inconclusive", AcceptedBy: "release-bot"}},
				{Name: "two", StartedAt: minute(12), FinishedAt: minute(13), ApprovedBy: "release-approvals"},
			}},
	}
}

func withHistory(name string, h []gitopsv1alpha1.RolloutRecord) gitopsv1alpha1.SiteSync {
	return gitopsv1alpha1.SiteSync{ObjectMeta: metav1.ObjectMeta{Namespace: "hub", Name: name},
		Status: gitopsv1alpha1.SiteSyncStatus{Rollout: &gitopsv1alpha1.RolloutStatus{
			Phase: gitopsv1alpha1.RolloutHalted, Revision: histRev2, History: h}}}
}

// TestRolloutHistoryTable: `siteops rollout history` prints one row per revision (outcome, start, end, rendered
// commits, why it halted) and one per wave (analysis, who approved, accepted or overrode a freeze).
func TestRolloutHistoryTable(t *testing.T) {
	var out bytes.Buffer
	items := []gitopsv1alpha1.SiteSync{withHistory("sites", twoRecords()), {ObjectMeta: metav1.ObjectMeta{
		Namespace: "hub", Name: "plain"}}}
	if err := writeHistoryTable(&out, items); err != nil {
		t.Fatal(err)
	}
	const at, pad = "2026-03-02T10:", "                "
	want := strings.Join([]string{
		"SiteSync hub/sites",
		"  REVISION      WAVE  OUTCOME   STARTED               ENDED                 DETAILS",
		"  222222222222  -     Halted    " + at + "20:00Z  " + at + "33:00Z  rendered c22222222222; " +
			"halted at wave one: analysis run sites-one-2222222222 Failed",
		pad + "one   Halted    " + at + "20:00Z  " + at + "33:00Z  " +
			"analysis sites-one-2222222222 Failed: error-rate measured 0.42 (Failed)",
		"  111111111111  -     Complete  " + at + "00:00Z  " + at + "13:00Z  rendered c11111111111,c22222222222",
		pad + "one   finished  " + at + "00:00Z  " + at + "11:00Z  analysis sites-one-1111111111 Inconclusive, " +
			"accepted by release-bot; freeze overridden by kubectl-annotate (INC-7 hotfix)",
		pad + "two   finished  " + at + "12:00Z  " + at + "13:00Z  approved by release-approvals",
		"",
		"SiteSync hub/plain",
		"  no rollout recorded",
		"",
	}, "\n")
	if out.String() != want {
		t.Errorf("got:\n%s\nwant:\n%s", out.String(), want)
	}
}

// TestRolloutHistoryClosesTheWavesOfAnEndedRevision: a wave of a revision whose rollout ended (Halted,
// Reverted, Superseded) before the wave finished says how the revision ended and when, not "started" with no
// end; a wave of a rollout still going on is started; a finished wave is finished when it finished.
func TestRolloutHistoryClosesTheWavesOfAnEndedRevision(t *testing.T) {
	for _, tc := range []struct {
		outcome   gitopsv1alpha1.RolloutOutcome
		ended     *metav1.Time
		wantState string
		wantEnded string
	}{
		{gitopsv1alpha1.OutcomeReverted, minute(40), "Reverted", "2026-03-02T10:40:00Z"},
		{gitopsv1alpha1.OutcomeHalted, minute(40), "Halted", "2026-03-02T10:40:00Z"},
		{gitopsv1alpha1.OutcomeSuperseded, minute(40), "Superseded", "2026-03-02T10:40:00Z"},
		{"", nil, "started", "-"},
	} {
		t.Run(string(tc.outcome), func(t *testing.T) {
			h := []gitopsv1alpha1.RolloutRecord{{Revision: histRev2, StartedAt: minute(30), EndedAt: tc.ended,
				Outcome: tc.outcome, Waves: []gitopsv1alpha1.WaveRecord{
					{Name: "canary", StartedAt: minute(30)},
					{Name: "early", StartedAt: minute(20), FinishedAt: minute(25)}}}}
			var out bytes.Buffer
			if err := writeHistoryTable(&out, []gitopsv1alpha1.SiteSync{withHistory("sites", h)}); err != nil {
				t.Fatal(err)
			}
			for _, want := range [][]string{{"canary", tc.wantState, "2026-03-02T10:30:00Z", tc.wantEnded, "-"},
				{"early", "finished", "2026-03-02T10:20:00Z", "2026-03-02T10:25:00Z", "-"}} {
				if !slices.ContainsFunc(strings.Split(out.String(), "\n"), func(line string) bool {
					return slices.Equal(strings.Fields(line), want)
				}) {
					t.Errorf("no wave row %q in:\n%s", want, out.String())
				}
			}
		})
	}
}

// TestStatusShowsTheRecentHistory: `siteops status` shows the last three revisions of the rollout history and
// says how many older ones `siteops rollout history` has.
func TestStatusShowsTheRecentHistory(t *testing.T) {
	h := twoRecords()
	h = append(h, gitopsv1alpha1.RolloutRecord{Revision: "3333333333333333333333333333333333333333",
		Outcome: gitopsv1alpha1.OutcomeSuperseded}, gitopsv1alpha1.RolloutRecord{Revision: strings.Repeat("4", 40)})
	var out bytes.Buffer
	if err := writeStatus(&out, []gitopsv1alpha1.SiteSync{withHistory("sites", h)}, time.Now()); err != nil {
		t.Fatal(err)
	}
	got := out.String()
	for _, want := range []string{
		"  HISTORY       OUTCOME     STARTED               ENDED                 WAVES    MESSAGE\n",
		"  222222222222  Halted      2026-03-02T10:20:00Z  2026-03-02T10:33:00Z  one      halted at wave one: " +
			"analysis run sites-one-2222222222 Failed\n",
		"  111111111111  Complete    2026-03-02T10:00:00Z  2026-03-02T10:13:00Z  one,two  -\n",
		"  333333333333  Superseded  -                     -                     -        -\n",
		"  1 older in `siteops rollout history`\n",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("output lacks %q:\n%s", want, got)
		}
	}
	if strings.Contains(got, "444444444444") {
		t.Errorf("status shows more than %d revisions:\n%s", recentHistory, got)
	}
}

// TestRolloutHistoryFromTheCluster: `siteops rollout history` reads the SiteSync's status from the cluster and
// prints its table, or with -o json its records; -h prints the usage and exits 0, a bad -o is a usage error.
func TestRolloutHistoryFromTheCluster(t *testing.T) {
	g := NewWithT(t)
	k8s, kubeconfigFile := startCluster(t)
	ctx := t.Context()
	ss := &gitopsv1alpha1.SiteSync{ObjectMeta: metav1.ObjectMeta{Namespace: "hub", Name: "sites"},
		Spec: gitopsv1alpha1.SiteSyncSpec{Source: gitopsv1alpha1.GitSource{URL: "https://git.example/config.git"}}}
	g.Expect(k8s.Create(ctx, ss)).To(Succeed())
	ss.Status = withHistory("sites", twoRecords()).Status
	g.Expect(k8s.Status().Update(ctx, ss)).To(Succeed())
	siteops := func(args ...string) (int, string, string) {
		var stdout, stderr bytes.Buffer
		code := run(context.Background(), args, &stdout, &stderr)
		return code, stdout.String(), stderr.String()
	}

	code, out, errs := siteops("rollout", "history", "--kubeconfig", kubeconfigFile, "-n", "hub", "sites")
	g.Expect(code).To(Equal(exitOK), errs)
	g.Expect(out).To(HavePrefix("SiteSync hub/sites\n  REVISION"))
	g.Expect(out).To(ContainSubstring("approved by release-approvals"))

	code, out, errs = siteops("rollout", "history", "--kubeconfig", kubeconfigFile, "-n", "hub", "-o", "json")
	g.Expect(code).To(Equal(exitOK), errs)
	var got []rolloutHistory
	g.Expect(json.Unmarshal([]byte(out), &got)).To(Succeed(), out)
	g.Expect(got).To(HaveLen(1))
	g.Expect(got[0].Name).To(Equal("sites"))
	g.Expect(got[0].History).To(HaveLen(2))
	g.Expect(got[0].History[0].Waves[0].Analysis.Message).To(Equal("measured 0.42 (Failed)"))
	g.Expect(got[0].History[1].Waves[1].ApprovedBy).To(Equal("release-approvals"))

	code, _, errs = siteops("rollout", "history", "-h")
	g.Expect(code).To(Equal(exitOK))
	g.Expect(errs).To(HavePrefix("Usage: siteops rollout history "))
	for _, args := range [][]string{{"rollout", "history", "-o", "yaml", "sites"}, {"rollout", "history", "a", "b"}} {
		code, _, errs := siteops(args...)
		g.Expect(code).To(Equal(exitUsage), "siteops %v: %s", args, errs)
	}
}
