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
	"fmt"
	"maps"
	"slices"
	"unicode/utf8"

	gitopsv1alpha1 "github.com/siteops/siteops/apis/gitops/v1alpha1"
)

// Bounds of what a history record quotes, so that status.rollout stays small whatever the messages.
const (
	maxRecordMessage  = 512
	maxRecordAnalysis = 256
	maxRecordActor    = 128
	maxRenderedCommit = 20
)

// history carries status.rollout.history over from the previous plan and records this plan in it: a revision
// that changes a site gets a record when its rollout starts, and every older record still going on is then
// Superseded; the current record learns when each wave started and finished, its analysis, who approved it
// or overrode a freeze, and the outcome. Outcomes only move forward (Complete may still turn Halted, Halted
// Reverted). The list is cut to the history limit, newest first.
func (p *planning) history() {
	hist := make([]gitopsv1alpha1.RolloutRecord, 0, len(p.prev.History)+1)
	for _, h := range p.prev.History {
		hist = append(hist, *h.DeepCopy())
	}
	if len(hist) == 0 || hist[0].Revision != p.in.Revision {
		for i := range hist {
			if hist[i].Outcome == "" {
				hist[i].Outcome, hist[i].EndedAt = gitopsv1alpha1.OutcomeSuperseded, p.now()
			}
		}
		if p.startsRollout() {
			hist = slices.Insert(hist, 0, gitopsv1alpha1.RolloutRecord{Revision: p.in.Revision, StartedAt: p.now()})
		}
	}
	if len(hist) > 0 && hist[0].Revision == p.in.Revision {
		p.record(&hist[0])
	}
	limit := p.r.historyLimit
	if limit <= 0 {
		limit = gitopsv1alpha1.DefaultRolloutHistoryLimit
	}
	if len(hist) > limit {
		hist = hist[:limit]
	}
	if len(hist) > 0 {
		p.out.Status.History = hist
	}
}

// startsRollout reports whether the plan's revision changes any site: only such revisions are recorded.
func (p *planning) startsRollout() bool {
	if len(p.out.Publish) > 0 {
		return true
	}
	for _, s := range p.in.Sites {
		if s.Changed {
			return true
		}
	}
	return false
}

// record updates the current revision's record from the plan.
func (p *planning) record(e *gitopsv1alpha1.RolloutRecord) {
	published := map[string]bool{}
	for _, s := range p.out.Publish {
		published[s] = true
	}
	for i, w := range p.r.waves {
		wr := waveRecord(e, w.name)
		if wr == nil {
			if !slices.ContainsFunc(p.members(w.name, ""), func(r *gitopsv1alpha1.RolloutSite) bool {
				return published[r.Name]
			}) {
				continue
			}
			e.Waves = append(e.Waves, p.startedWave(w))
			wr = &e.Waves[len(e.Waves)-1]
		}
		if a := p.in.Analysis[w.name]; a != nil {
			wr.Analysis = p.analysisRecord(w, a, wr.Analysis)
		}
		if wr.FinishedAt == nil && p.passed(i) {
			wr.FinishedAt = p.now()
		}
	}
	p.renderedCommits(e)
	p.outcome(e)
}

// waveRecord is the record of wave name in e, nil when it has none.
func waveRecord(e *gitopsv1alpha1.RolloutRecord, name string) *gitopsv1alpha1.WaveRecord {
	for i := range e.Waves {
		if e.Waves[i].Name == name {
			return &e.Waves[i]
		}
	}
	return nil
}

// startedWave is the record of wave w, published now: who approved it and who overrode a freeze window.
func (p *planning) startedWave(w wave) gitopsv1alpha1.WaveRecord {
	wr := gitopsv1alpha1.WaveRecord{Name: w.name, StartedAt: p.now()}
	if w.approval {
		wr.ApprovedBy = p.actor(gitopsv1alpha1.ApproveAnnotationPrefix + w.name)
	}
	if p.out.Override != "" {
		wr.FreezeOverriddenBy = p.actor(gitopsv1alpha1.OverrideFreezeAnnotation)
		wr.FreezeOverrideReason = clipTo(p.out.Override, maxRecordAnalysis)
	}
	return wr
}

// passed reports whether the rollout has gone past the i-th wave: it is Complete, or at a later wave.
func (p *planning) passed(i int) bool {
	st := p.out.Status
	if st.Phase == gitopsv1alpha1.RolloutComplete {
		return true
	}
	return slices.IndexFunc(p.r.waves, func(w wave) bool { return w.name == st.Wave }) > i
}

// analysisRecord is what the history keeps of wave w's run a: its phase, the first metric that did not
// succeed and what it measured, and who accepted or rejected it when it was Inconclusive.
func (p *planning) analysisRecord(w wave, a *gitopsv1alpha1.WaveAnalysisStatus,
	old *gitopsv1alpha1.AnalysisRecord) *gitopsv1alpha1.AnalysisRecord {
	ar := &gitopsv1alpha1.AnalysisRecord{Run: a.Run, Phase: a.Phase, Message: a.Message}
	if old != nil {
		ar.AcceptedBy, ar.RejectedBy = old.AcceptedBy, old.RejectedBy
	}
	for _, m := range a.Metrics {
		if m.Phase == analysisSuccessful {
			continue
		}
		ar.Metric, ar.Message = m.Name, m.Message
		if n := len(m.Measurements); n > 0 && ar.Message == "" {
			last := m.Measurements[n-1]
			ar.Message = fmt.Sprintf("measured %s (%s)", last.Value, last.Phase)
		}
		break
	}
	ar.Message = clipTo(ar.Message, maxRecordAnalysis)
	if a.Phase == analysisInconclusive {
		accept := gitopsv1alpha1.AcceptAnalysisAnnotationPrefix + w.name
		reject := gitopsv1alpha1.RejectAnalysisAnnotationPrefix + w.name
		switch {
		case ar.AcceptedBy == "" && p.settledBy(accept):
			ar.AcceptedBy = p.actor(accept)
		case ar.RejectedBy == "" && ar.AcceptedBy == "" && p.settledBy(reject):
			ar.RejectedBy = p.actor(reject)
		}
	}
	return ar
}

// renderedCommits adds the rendered commits of the sites this revision published since its record started.
func (p *planning) renderedCommits(e *gitopsv1alpha1.RolloutRecord) {
	for _, name := range slices.Sorted(maps.Keys(p.recs)) {
		rec, s := p.recs[name], p.sites[name]
		if rec.State != gitopsv1alpha1.SitePublished && rec.State != gitopsv1alpha1.SiteHalted {
			continue
		}
		if s.RenderedCommit == "" || s.PublishedRevision != p.in.Revision || rec.PublishedAt == nil ||
			e.StartedAt == nil || rec.PublishedAt.Before(e.StartedAt) {
			continue
		}
		if !slices.Contains(e.RenderedCommits, s.RenderedCommit) && len(e.RenderedCommits) < maxRenderedCommit {
			e.RenderedCommits = append(e.RenderedCommits, s.RenderedCommit)
		}
	}
}

// outcome moves the record's outcome forward from the plan's phase: Complete, Halted, or Reverted once a
// failed site of the revision has been reverted.
func (p *planning) outcome(e *gitopsv1alpha1.RolloutRecord) {
	st := p.out.Status
	next := e.Outcome
	switch st.Phase {
	case gitopsv1alpha1.RolloutComplete:
		if e.Outcome == "" {
			next = gitopsv1alpha1.OutcomeComplete
		}
	case gitopsv1alpha1.RolloutHalted:
		next = gitopsv1alpha1.OutcomeHalted
		if e.Outcome == gitopsv1alpha1.OutcomeReverted || slices.ContainsFunc(st.Sites,
			func(s gitopsv1alpha1.RolloutSite) bool { return s.State == gitopsv1alpha1.SiteReverted }) {
			next = gitopsv1alpha1.OutcomeReverted
		}
		e.Message = clipTo(st.Message, maxRecordMessage)
	}
	if next != e.Outcome {
		e.Outcome, e.EndedAt = next, p.now()
	}
}

// actor is who set the annotation, as Input.Actor says, or UnknownActor.
func (p *planning) actor(annotation string) string {
	if p.in.Actor != nil {
		if who := p.in.Actor(annotation); who != "" {
			return clipTo(who, maxRecordActor)
		}
	}
	return gitopsv1alpha1.UnknownActor
}

// clipTo shortens s to at most n bytes, on a rune boundary, ending in "...".
func clipTo(s string, n int) string {
	if len(s) <= n {
		return s
	}
	cut := n - 3
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "..."
}
