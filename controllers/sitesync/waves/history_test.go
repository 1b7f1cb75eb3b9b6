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

package waves

import (
	"strings"
	"testing"
	"time"

	gitopsv1alpha1 "github.com/siteops/siteops/apis/gitops/v1alpha1"
)

// run drives a rollout the way the controller does: each plan is carried out (published sites move to the
// revision's rendered commit, reverted ones back) and becomes the next plan's previous status.
type run struct {
	r           *Rollout
	sites       []Site
	status      *gitopsv1alpha1.RolloutStatus
	now         time.Time
	annotations map[string]string
	analysis    map[string]*gitopsv1alpha1.WaveAnalysisStatus
	actor       func(string) string
}

func newRun(t *testing.T, spec gitopsv1alpha1.RolloutSpec) *run {
	return &run{r: compile(t, spec), sites: fleet(), now: t0}
}

// plan plans revision at the run's clock and carries it out; the rendered commit is "c" + the revision.
func (x *run) plan(revision string) Plan {
	p := x.r.Plan(Input{Revision: revision, Sites: x.sites, Previous: x.status, Annotations: x.annotations,
		Now: x.now, CanPublish: true, Analysis: x.analysis, Actor: x.actor})
	x.sites = after(x.sites, p, "c"+revision[:39], revision, x.now)
	x.status = &p.Status
	return p
}

// deliver puts the named sites in state since the run's clock.
func (x *run) deliver(state gitopsv1alpha1.DeliveryState, names ...string) {
	for _, n := range names {
		for i := range x.sites {
			if x.sites[i].Name == n {
				x.sites[i].Delivery, x.sites[i].Since = state, x.now
			}
		}
	}
}

// change marks every site as changed by the next revision.
func (x *run) change() {
	for i := range x.sites {
		x.sites[i].Changed = true
	}
}

// complete rolls revision out to the whole fleet: canary, its soak, edge, then the unlisted wave.
func (x *run) complete(revision string) {
	x.plan(revision)
	x.deliver(gitopsv1alpha1.DeliveryDelivered, "dev")
	x.now = x.now.Add(11 * time.Minute)
	x.plan(revision)
	x.deliver(gitopsv1alpha1.DeliveryDelivered, "edge-1", "edge-2")
	x.now = x.now.Add(time.Minute)
	x.plan(revision)
	x.deliver(gitopsv1alpha1.DeliveryDelivered, "prod")
	x.now = x.now.Add(time.Minute)
	x.plan(revision)
}

func (x *run) history() []gitopsv1alpha1.RolloutRecord { return x.status.History }

// outcomes lists each record's revision prefix and outcome, newest first.
func outcomes(h []gitopsv1alpha1.RolloutRecord) string {
	var out []string
	for _, e := range h {
		out = append(out, e.Revision[:4]+"="+string(e.Outcome))
	}
	return strings.Join(out, " ")
}

func rfc3339(t time.Time) string { return t.UTC().Format(time.RFC3339) }

func stamp(m interface{ IsZero() bool }, s func() string) string {
	if m.IsZero() {
		return "-"
	}
	return s()
}

// TestHistoryOutcomes: each revision that changes a site gets a record when its rollout starts; it is Complete
// once every changed site runs it, Halted when a site fails, Reverted once onFailure Revert restored a failed
// site, and Superseded when a newer revision starts before it ended. A finished record keeps its outcome.
func TestHistoryOutcomes(t *testing.T) {
	rev3 := "3333333333333333333333333333333333333333"
	revert := twoWaves()
	revert.OnFailure = gitopsv1alpha1.OnFailureRevert
	cases := []struct {
		name  string
		spec  gitopsv1alpha1.RolloutSpec
		drive func(x *run)
		want  string
	}{
		{"in progress", twoWaves(), func(x *run) { x.plan(rev1) }, "1111="},
		{"complete", twoWaves(), func(x *run) { x.complete(rev1) }, "1111=Complete"},
		{"halted", twoWaves(), func(x *run) {
			x.plan(rev1)
			x.deliver(gitopsv1alpha1.DeliveryDegraded, "dev")
			x.plan(rev1)
		}, "1111=Halted"},
		{"reverted", revert, func(x *run) {
			x.plan(rev1)
			x.deliver(gitopsv1alpha1.DeliveryDegraded, "dev")
			x.plan(rev1)
		}, "1111=Reverted"},
		{"superseded while soaking", twoWaves(), func(x *run) {
			x.plan(rev1)
			x.deliver(gitopsv1alpha1.DeliveryDelivered, "dev")
			x.now = x.now.Add(time.Minute)
			x.change()
			x.plan(rev2)
		}, "2222= 1111=Superseded"},
		{"a complete or halted revision is not superseded", twoWaves(), func(x *run) {
			x.complete(rev1)
			x.change()
			x.plan(rev2)
			x.deliver(gitopsv1alpha1.DeliveryDegraded, "dev")
			x.plan(rev2)
			x.change()
			x.plan(rev3)
		}, "3333= 2222=Halted 1111=Complete"},
		{"a revision that changes no site is not recorded", twoWaves(), func(x *run) {
			x.complete(rev1)
			x.plan(rev2)
		}, "1111=Complete"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			x := newRun(t, tc.spec)
			tc.drive(x)
			if got := outcomes(x.history()); got != tc.want {
				t.Errorf("history %q, want %q", got, tc.want)
			}
			for _, e := range x.history() {
				if (e.Outcome == "") != (e.EndedAt == nil) {
					t.Errorf("%s: outcome %q ended at %v", e.Revision[:4], e.Outcome, e.EndedAt)
				}
			}
		})
	}
}

// TestHistoryRecordsWavesAndCommits: a complete record has when it started and ended, each wave's start and
// finish in order, and the rendered commit that published the revision; a halted one says why and leaves the
// failed wave unfinished.
func TestHistoryRecordsWavesAndCommits(t *testing.T) {
	x := newRun(t, twoWaves())
	x.complete(rev1)
	e := x.history()[0]
	var waves []string
	for _, w := range e.Waves {
		waves = append(waves, w.Name+" "+stamp(w.StartedAt, func() string { return rfc3339(w.StartedAt.Time) })+" "+
			stamp(w.FinishedAt, func() string { return rfc3339(w.FinishedAt.Time) }))
	}
	want := []string{
		"canary 2026-03-02T10:00:00Z 2026-03-02T10:11:00Z",
		"edge 2026-03-02T10:11:00Z 2026-03-02T10:12:00Z",
		"unlisted 2026-03-02T10:12:00Z 2026-03-02T10:13:00Z",
	}
	if strings.Join(waves, "\n") != strings.Join(want, "\n") {
		t.Errorf("waves:\n%s\nwant:\n%s", strings.Join(waves, "\n"), strings.Join(want, "\n"))
	}
	if rfc3339(e.StartedAt.Time) != "2026-03-02T10:00:00Z" || rfc3339(e.EndedAt.Time) != "2026-03-02T10:13:00Z" {
		t.Errorf("started %v ended %v", e.StartedAt, e.EndedAt)
	}
	if got := strings.Join(e.RenderedCommits, ","); got != "c"+rev1[:39] {
		t.Errorf("rendered commits %q", got)
	}

	x.change()
	x.plan(rev2)
	x.deliver(gitopsv1alpha1.DeliveryDegraded, "dev")
	x.sites[0].Message = "CrashLoopBackOff"
	x.plan(rev2)
	e = x.history()[0]
	if e.Outcome != gitopsv1alpha1.OutcomeHalted || !strings.Contains(e.Message, "dev Degraded") ||
		!strings.Contains(e.Message, "CrashLoopBackOff") {
		t.Errorf("rev2: %s %q", e.Outcome, e.Message)
	}
	if len(e.Waves) != 1 || e.Waves[0].FinishedAt != nil {
		t.Errorf("rev2 waves %+v, want canary started and not finished", e.Waves)
	}
	if got := strings.Join(e.RenderedCommits, ","); got != "c"+rev2[:39] {
		t.Errorf("rev2 rendered commits %q (the soaking rev1 commit is not rev2's)", got)
	}
}

// TestHistoryLimit: the history keeps spec.rolloutHistoryLimit revisions, newest first (10 when unset).
func TestHistoryLimit(t *testing.T) {
	revs := []string{rev1, rev2}
	for i := 3; i <= 12; i++ {
		revs = append(revs, strings.Repeat(string(rune('a'+i)), 40))
	}
	for _, tc := range []struct {
		limit *int32
		want  int
	}{{nil, 10}, {ptrTo(int32(2)), 2}} {
		spec := twoWaves()
		spec.RolloutHistoryLimit = tc.limit
		x := newRun(t, spec)
		for _, rev := range revs {
			x.change()
			x.plan(rev)
		}
		h := x.history()
		if len(h) != tc.want || h[0].Revision != revs[len(revs)-1] || h[len(h)-1].Revision != revs[len(revs)-tc.want] {
			t.Errorf("limit %v: %d records %q", tc.limit, len(h), outcomes(h))
		}
	}
}

func ptrTo[T any](v T) *T { return &v }

// TestHistoryWho: the record names who approved a wave, overrode a freeze window and accepted an Inconclusive
// analysis, as Input.Actor reports the annotation's setter, and "unknown" when it cannot say.
func TestHistoryWho(t *testing.T) {
	spec := analyzedWaves(gitopsv1alpha1.OnFailureHalt)
	spec.Waves[1].RequireApproval = true
	spec.Freeze = []gitopsv1alpha1.FreezeWindow{{Schedule: "0 9 * * *", Duration: *dur(4 * time.Hour)}}
	setters := map[string]string{
		gitopsv1alpha1.OverrideFreezeAnnotation:                  "kubectl-annotate",
		gitopsv1alpha1.ApproveAnnotationPrefix + "edge":          "siteops-approvals",
		gitopsv1alpha1.AcceptAnalysisAnnotationPrefix + "canary": "Mozilla",
		gitopsv1alpha1.RejectAnalysisAnnotationPrefix + "canary": "never",
	}
	for _, tc := range []struct {
		name  string
		actor func(string) string
		who   string
	}{
		{"from the actor", func(a string) string { return setters[a] }, ""},
		{"unknown", nil, gitopsv1alpha1.UnknownActor},
	} {
		t.Run(tc.name, func(t *testing.T) {
			want := func(a string) string {
				if tc.who != "" {
					return tc.who
				}
				return setters[a]
			}
			x := newRun(t, spec)
			x.actor = tc.actor
			x.annotations = map[string]string{gitopsv1alpha1.OverrideFreezeAnnotation: rev1[:7] + " hotfix INC-7"}
			x.plan(rev1)
			x.deliver(gitopsv1alpha1.DeliveryDelivered, "dev")
			x.now = x.now.Add(11 * time.Minute)
			x.analysis = canaryRun(analysisInconclusive)
			x.plan(rev1)
			x.annotations[gitopsv1alpha1.AcceptAnalysisAnnotationPrefix+"canary"] = rev1
			x.annotations[gitopsv1alpha1.ApproveAnnotationPrefix+"edge"] = rev1
			x.plan(rev1)
			e := x.history()[0]
			if len(e.Waves) != 2 {
				t.Fatalf("waves %+v", e.Waves)
			}
			canary, edge := e.Waves[0], e.Waves[1]
			if canary.FreezeOverriddenBy != want(gitopsv1alpha1.OverrideFreezeAnnotation) ||
				canary.FreezeOverrideReason != "hotfix INC-7" || canary.ApprovedBy != "" {
				t.Errorf("canary: %+v", canary)
			}
			if a := canary.Analysis; a == nil || a.Run != "sites-canary-1111111111" || a.Phase != analysisInconclusive ||
				a.Metric != "error-rate" || a.Message != "measured 0.9 (Inconclusive)" ||
				a.AcceptedBy != want(gitopsv1alpha1.AcceptAnalysisAnnotationPrefix+"canary") || a.RejectedBy != "" {
				t.Errorf("canary analysis: %+v", canary.Analysis)
			}
			if edge.ApprovedBy != want(gitopsv1alpha1.ApproveAnnotationPrefix+"edge") ||
				edge.FreezeOverriddenBy != want(gitopsv1alpha1.OverrideFreezeAnnotation) {
				t.Errorf("edge: %+v", edge)
			}
		})
	}
}

// TestHistoryRecordsAFailedAnalysis: a Failed run halts the rollout; the record keeps the run, the failing
// metric and its measurement.
func TestHistoryRecordsAFailedAnalysis(t *testing.T) {
	x := newRun(t, analyzedWaves(gitopsv1alpha1.OnFailureHalt))
	x.plan(rev1)
	x.deliver(gitopsv1alpha1.DeliveryDelivered, "dev")
	x.now = x.now.Add(11 * time.Minute)
	x.analysis = canaryRun(analysisFailed)
	x.plan(rev1)
	e := x.history()[0]
	if e.Outcome != gitopsv1alpha1.OutcomeHalted || !strings.Contains(e.Message, "metric error-rate Failed") {
		t.Errorf("%s %q", e.Outcome, e.Message)
	}
	if a := e.Waves[0].Analysis; a == nil || a.Phase != analysisFailed || a.Metric != "error-rate" ||
		a.Message != "measured 0.9 (Failed)" {
		t.Errorf("analysis %+v", a)
	}
}
