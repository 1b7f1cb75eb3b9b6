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
	"slices"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	gitopsv1alpha1 "github.com/siteops/siteops/apis/gitops/v1alpha1"
)

// analyzedWaves is twoWaves with canary verified by an AnalysisRun.
func analyzedWaves(onFailure gitopsv1alpha1.OnFailure) gitopsv1alpha1.RolloutSpec {
	spec := twoWaves()
	spec.OnFailure = onFailure
	spec.Waves[0].Analysis = &gitopsv1alpha1.WaveAnalysis{
		Templates: []gitopsv1alpha1.AnalysisTemplateRef{{TemplateName: "error-rate"}}}
	return spec
}

// canaryRun is wave canary's run in phase, with a failing metric when the phase is not Successful.
func canaryRun(phase string) map[string]*gitopsv1alpha1.WaveAnalysisStatus {
	a := &gitopsv1alpha1.WaveAnalysisStatus{Wave: "canary", Run: "sites-canary-1111111111", Phase: phase}
	if phase != analysisSuccessful && phase != "Running" {
		a.Metrics = []gitopsv1alpha1.AnalysisMetricStatus{{Name: "error-rate", Phase: phase,
			Measurements: []gitopsv1alpha1.AnalysisMeasurement{{Phase: phase, Value: "0.9"}}}}
	}
	return map[string]*gitopsv1alpha1.WaveAnalysisStatus{"canary": a}
}

// TestPlanAnalysis: once wave canary's sites are Synced, Healthy and soaked the plan asks for its AnalysisRun;
// the next wave is published only when the run is Successful (or Inconclusive and accepted); Failed, Error and
// a rejection halt (and revert, with onFailure Revert) naming the failing metric and its measurement.
func TestPlanAnalysis(t *testing.T) {
	accept := map[string]string{gitopsv1alpha1.AcceptAnalysisAnnotationPrefix + "canary": rev1[:7]}
	reject := map[string]string{gitopsv1alpha1.RejectAnalysisAnnotationPrefix + "canary": rev1}
	acceptOld := map[string]string{gitopsv1alpha1.AcceptAnalysisAnnotationPrefix + "canary": rev2}
	soaked := t0.Add(12 * time.Minute)
	cases := []struct {
		name        string
		onFailure   gitopsv1alpha1.OnFailure
		analysis    map[string]*gitopsv1alpha1.WaveAnalysisStatus
		annotations map[string]string
		now         time.Time
		phase       gitopsv1alpha1.RolloutPhase
		publish     []string
		revert      bool
		analyze     bool
		devState    gitopsv1alpha1.SiteRolloutState
		message     string
		events      []string
	}{
		{name: "soaking: no run yet", now: t0.Add(5 * time.Minute), phase: gitopsv1alpha1.RolloutSoaking,
			devState: gitopsv1alpha1.SitePublished, message: "soaking until"},
		{name: "soaked: the run is asked for", now: soaked, phase: gitopsv1alpha1.RolloutAnalyzing, analyze: true,
			devState: gitopsv1alpha1.SitePublished, message: "starting the analysis"},
		{name: "running", analysis: canaryRun("Running"), now: soaked, phase: gitopsv1alpha1.RolloutAnalyzing,
			devState: gitopsv1alpha1.SitePublished, message: "analysis run sites-canary-1111111111 is Running"},
		{name: "successful", analysis: canaryRun(analysisSuccessful), now: soaked,
			phase: gitopsv1alpha1.RolloutProgressing, publish: []string{"edge-1", "edge-2"},
			devState: gitopsv1alpha1.SitePublished, message: "wave edge: committed",
			events: []string{gitopsv1alpha1.EventWaveStarted}},
		{name: "failed", analysis: canaryRun(analysisFailed), now: soaked, phase: gitopsv1alpha1.RolloutHalted,
			devState: gitopsv1alpha1.SiteHalted, message: "metric error-rate Failed, measured Failed 0.9",
			events: []string{gitopsv1alpha1.EventRolloutHalted}},
		{name: "error", analysis: canaryRun(analysisError), now: soaked, phase: gitopsv1alpha1.RolloutHalted,
			devState: gitopsv1alpha1.SiteHalted, message: "run sites-canary-1111111111 Error",
			events: []string{gitopsv1alpha1.EventRolloutHalted}},
		{name: "failed and reverted", onFailure: gitopsv1alpha1.OnFailureRevert, analysis: canaryRun(analysisFailed),
			now: soaked, phase: gitopsv1alpha1.RolloutHalted, revert: true, devState: gitopsv1alpha1.SiteReverted,
			message: "metric error-rate Failed",
			events:  []string{gitopsv1alpha1.EventRolloutHalted, gitopsv1alpha1.EventSiteReverted}},
		{name: "inconclusive waits", analysis: canaryRun(analysisInconclusive), now: soaked,
			phase: gitopsv1alpha1.RolloutInconclusive, devState: gitopsv1alpha1.SitePublished,
			message: gitopsv1alpha1.AcceptAnalysisAnnotationPrefix + "canary=" + rev1,
			events:  []string{gitopsv1alpha1.EventAnalysisInconclusive}},
		{name: "inconclusive accepted for another revision waits", analysis: canaryRun(analysisInconclusive),
			annotations: acceptOld, now: soaked, phase: gitopsv1alpha1.RolloutInconclusive,
			devState: gitopsv1alpha1.SitePublished, message: "metric error-rate Inconclusive",
			events: []string{gitopsv1alpha1.EventAnalysisInconclusive}},
		{name: "inconclusive accepted", analysis: canaryRun(analysisInconclusive), annotations: accept, now: soaked,
			phase: gitopsv1alpha1.RolloutProgressing, publish: []string{"edge-1", "edge-2"},
			devState: gitopsv1alpha1.SitePublished, message: "wave edge", events: []string{gitopsv1alpha1.EventWaveStarted}},
		{name: "inconclusive rejected", analysis: canaryRun(analysisInconclusive), annotations: reject, now: soaked,
			phase: gitopsv1alpha1.RolloutHalted, devState: gitopsv1alpha1.SiteHalted,
			message: "rejected by " + gitopsv1alpha1.RejectAnalysisAnnotationPrefix + "canary",
			events:  []string{gitopsv1alpha1.EventRolloutHalted}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := compile(t, analyzedWaves(tc.onFailure))
			prev := r.Plan(Input{Revision: rev1, Sites: fleet(), Now: t0, CanPublish: true}).Status
			// dev is Synced and Healthy at rev1's output since t0+1m; its soak of 10m ends at t0+11m.
			p := r.Plan(Input{Revision: rev1, Sites: devAt("Delivered", t0.Add(time.Minute), ""), Previous: &prev,
				Annotations: tc.annotations, Analysis: tc.analysis, Now: tc.now, CanPublish: true})
			st := p.Status
			if st.Phase != tc.phase || !strings.Contains(st.Message, tc.message) {
				t.Fatalf("phase %s %q, want %s containing %q", st.Phase, st.Message, tc.phase, tc.message)
			}
			if !slices.Equal(p.Publish, tc.publish) || (len(p.Revert) > 0) != tc.revert {
				t.Errorf("publish %v revert %v, want %v revert %v", p.Publish, p.Revert, tc.publish, tc.revert)
			}
			if (p.Analyze != nil) != tc.analyze {
				t.Errorf("analyze %+v, want %v", p.Analyze, tc.analyze)
			}
			if p.Analyze != nil && (p.Analyze.Wave != "canary" || !slices.Equal(p.Analyze.Sites, []string{"dev"})) {
				t.Errorf("analyze %+v, want canary of dev", p.Analyze)
			}
			if got := site(t, st, "dev").State; got != tc.devState {
				t.Errorf("dev %s, want %s", got, tc.devState)
			}
			if got := reasons(p); tc.phase != gitopsv1alpha1.RolloutProgressing && !slices.Equal(got, tc.events) {
				t.Errorf("events %v, want %v", got, tc.events)
			}
			if tc.phase == gitopsv1alpha1.RolloutProgressing && !slices.Contains(reasons(p), gitopsv1alpha1.EventWaveFinished) {
				t.Errorf("events %v, want WaveFinished of canary", reasons(p))
			}
			if tc.analysis != nil && tc.phase != gitopsv1alpha1.RolloutProgressing && st.Analysis != tc.analysis["canary"] {
				t.Errorf("status.analysis %+v, want canary's run", st.Analysis)
			}
		})
	}
}

// TestPlanAnalysisHaltStays: a rollout halted by its analysis stays halted, keeps the run in status and emits
// nothing more; the Inconclusive event is not repeated while the run waits for a person.
func TestPlanAnalysisHaltStays(t *testing.T) {
	r := compile(t, analyzedWaves(gitopsv1alpha1.OnFailureHalt))
	prev := r.Plan(Input{Revision: rev1, Sites: fleet(), Now: t0, CanPublish: true}).Status
	sites := devAt("Delivered", t0.Add(time.Minute), "")
	now := t0.Add(12 * time.Minute)
	p := r.Plan(Input{Revision: rev1, Sites: sites, Previous: &prev, Analysis: canaryRun(analysisInconclusive),
		Now: now, CanPublish: true})
	again := r.Plan(Input{Revision: rev1, Sites: sites, Previous: &p.Status, Analysis: canaryRun(analysisInconclusive),
		Now: now.Add(time.Minute), CanPublish: true})
	if again.Status.Phase != gitopsv1alpha1.RolloutInconclusive || len(again.Events) != 0 {
		t.Errorf("second look: phase %s events %v", again.Status.Phase, again.Events)
	}
	halted := r.Plan(Input{Revision: rev1, Sites: sites, Previous: &again.Status, Analysis: canaryRun(analysisFailed),
		Now: now.Add(2 * time.Minute), CanPublish: true})
	later := r.Plan(Input{Revision: rev1, Sites: sites, Previous: &halted.Status, Analysis: canaryRun(analysisFailed),
		Now: now.Add(time.Hour), CanPublish: true})
	if later.Status.Phase != gitopsv1alpha1.RolloutHalted || len(later.Events) != 0 || len(later.Publish) != 0 ||
		later.Status.Analysis == nil || later.Status.Message != halted.Status.Message {
		t.Errorf("halt does not stay: %+v events %v publish %v", later.Status, later.Events, later.Publish)
	}
}

// TestPlanAnalysisMessageFitsStatus: a Failed run with twenty failing metrics and long messages halts with a
// message status.rollout.message can hold (2048 characters).
func TestPlanAnalysisMessageFitsStatus(t *testing.T) {
	r := compile(t, analyzedWaves(gitopsv1alpha1.OnFailureHalt))
	prev := r.Plan(Input{Revision: rev1, Sites: fleet(), Now: t0, CanPublish: true}).Status
	run := canaryRun(analysisFailed)
	run["canary"].Message = strings.Repeat("é", 1000)
	for i := range 20 {
		run["canary"].Metrics = append(run["canary"].Metrics, gitopsv1alpha1.AnalysisMetricStatus{
			Name: fmt.Sprintf("metric-%d", i), Phase: analysisFailed, Message: strings.Repeat("x", 1024)})
	}
	p := r.Plan(Input{Revision: rev1, Sites: devAt("Delivered", t0.Add(time.Minute), ""), Previous: &prev,
		Analysis: run, Now: t0.Add(12 * time.Minute), CanPublish: true})
	if p.Status.Phase != gitopsv1alpha1.RolloutHalted || len(p.Status.Message) > 2048 ||
		!utf8.ValidString(p.Status.Message) {
		t.Errorf("phase %s, message of %d bytes (valid UTF-8: %v)", p.Status.Phase, len(p.Status.Message),
			utf8.ValidString(p.Status.Message))
	}
}
