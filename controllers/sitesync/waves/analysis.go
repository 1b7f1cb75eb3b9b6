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
	"strings"
	"unicode/utf8"

	gitopsv1alpha1 "github.com/siteops/siteops/apis/gitops/v1alpha1"
)

// The AnalysisRun phases the planner acts on, as Argo Rollouts writes them.
const (
	analysisSuccessful   = "Successful"
	analysisFailed       = "Failed"
	analysisError        = "Error"
	analysisInconclusive = "Inconclusive"
)

// maxDescription bounds what a halt or Inconclusive message says of a run, so status.rollout.message stays
// within its 2048 characters whatever the run's metrics and messages.
const maxDescription = 1200

// AnalysisRequest asks the controller for the AnalysisRun of a wave.
type AnalysisRequest struct {
	Wave string
	// Sites are the wave's published sites, by name.
	Sites []string
}

// wasVerifying reports whether the previous plan had the rollout on its way through a wave: publishing,
// soaking or analyzing it.
func (p *planning) wasVerifying() bool {
	switch p.prev.Phase {
	case gitopsv1alpha1.RolloutProgressing, gitopsv1alpha1.RolloutSoaking, gitopsv1alpha1.RolloutAnalyzing,
		gitopsv1alpha1.RolloutInconclusive:
		return true
	}
	return false
}

// analyzed reports whether the wave's AnalysisRun for the revision passed: Successful, or Inconclusive and
// accepted by annotation. Otherwise it asks for the run, says the wave waits for it, or halts the rollout when
// the run Failed, Errored or was rejected.
func (p *planning) analyzed(w wave, published []*gitopsv1alpha1.RolloutSite) bool {
	st := &p.out.Status
	st.Wave = w.name
	a := p.in.Analysis[w.name]
	phase := ""
	if a != nil {
		phase = a.Phase
	}
	switch phase {
	case analysisSuccessful:
		return true
	case analysisFailed, analysisError:
		p.haltOnAnalysis(w, published, fmt.Sprintf("analysis %s", describeAnalysis(a)))
		return false
	case analysisInconclusive:
		switch {
		case p.settledBy(gitopsv1alpha1.AcceptAnalysisAnnotationPrefix + w.name):
			return true
		case p.settledBy(gitopsv1alpha1.RejectAnalysisAnnotationPrefix + w.name):
			p.haltOnAnalysis(w, published, fmt.Sprintf("analysis %s, rejected by %s%s", describeAnalysis(a),
				gitopsv1alpha1.RejectAnalysisAnnotationPrefix, w.name))
			return false
		}
		p.inconclusive(w, published, a)
	case "":
		st.Phase = gitopsv1alpha1.RolloutAnalyzing
		st.Message = fmt.Sprintf("wave %s: starting the analysis of %s", w.name, short(p.in.Revision))
		waitFor(published, "the analysis of wave "+w.name)
		p.out.Analyze = &AnalysisRequest{Wave: w.name, Sites: siteNames(published)}
	default:
		st.Phase = gitopsv1alpha1.RolloutAnalyzing
		st.Message = fmt.Sprintf("wave %s: analysis run %s is %s", w.name, a.Run, phase)
		waitFor(published, fmt.Sprintf("analysis run %s", a.Run))
	}
	p.laterWavesWait(w)
	return false
}

// inconclusive holds the wave until a person accepts or rejects its Inconclusive run.
func (p *planning) inconclusive(w wave, published []*gitopsv1alpha1.RolloutSite, a *gitopsv1alpha1.WaveAnalysisStatus) {
	st := &p.out.Status
	st.Phase = gitopsv1alpha1.RolloutInconclusive
	st.Message = fmt.Sprintf("wave %s: analysis %s; annotate the SiteSync with %s%s=%s to go on or %s%s=%s to halt",
		w.name, describeAnalysis(a), gitopsv1alpha1.AcceptAnalysisAnnotationPrefix, w.name, p.in.Revision,
		gitopsv1alpha1.RejectAnalysisAnnotationPrefix, w.name, p.in.Revision)
	waitFor(published, fmt.Sprintf("a person to accept or reject analysis run %s", a.Run))
	if p.prev.Phase != gitopsv1alpha1.RolloutInconclusive || p.prev.Wave != w.name || p.prev.Revision != p.in.Revision {
		p.event(true, gitopsv1alpha1.EventAnalysisInconclusive, st.Message)
	}
}

// haltOnAnalysis halts the rollout at wave w for every published site of it: the analysis speaks for the wave.
func (p *planning) haltOnAnalysis(w wave, published []*gitopsv1alpha1.RolloutSite, why string) {
	failed := map[*gitopsv1alpha1.RolloutSite]string{}
	for _, rec := range published {
		failed[rec] = fmt.Sprintf("wave %s failed its %s", w.name, why)
	}
	p.haltWith(w, failed, why)
}

// settledBy reports whether the annotation names the revision (full SHA or a prefix of 7 or more).
func (p *planning) settledBy(annotation string) bool {
	v := strings.TrimSpace(p.in.Annotations[annotation])
	return len(v) >= 7 && strings.HasPrefix(p.in.Revision, v)
}

// describeAnalysis says what the run found: its phase and message, and each metric that did not succeed with
// its last measured values.
func describeAnalysis(a *gitopsv1alpha1.WaveAnalysisStatus) string {
	out := fmt.Sprintf("run %s %s", a.Run, a.Phase)
	if a.Message != "" {
		out += " (" + a.Message + ")"
	}
	var metrics []string
	for _, m := range a.Metrics {
		s := fmt.Sprintf("metric %s %s", m.Name, m.Phase)
		var values []string
		for _, v := range m.Measurements {
			values = append(values, fmt.Sprintf("%s %s", v.Phase, v.Value))
		}
		if len(values) > 0 {
			s += ", measured " + strings.Join(values, ", ")
		}
		if m.Message != "" {
			s += " (" + m.Message + ")"
		}
		metrics = append(metrics, s)
	}
	if len(metrics) > 0 {
		out += ": " + strings.Join(metrics, "; ")
	}
	if len(out) > maxDescription {
		cut := maxDescription
		for cut > 0 && !utf8.RuneStart(out[cut]) {
			cut--
		}
		out = out[:cut] + " ..."
	}
	return out
}

// siteNames lists the records' site names.
func siteNames(recs []*gitopsv1alpha1.RolloutSite) []string {
	out := make([]string, len(recs))
	for i, r := range recs {
		out[i] = r.Name
	}
	return out
}
