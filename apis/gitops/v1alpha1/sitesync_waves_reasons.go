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

package v1alpha1

// Reasons of a rollout of waves: events (one per visible action) and the stall reason.
const (
	// EventWaveStarted (Normal): a wave's changed sites were committed to the rendered branch.
	EventWaveStarted = "WaveStarted"
	// EventWaveFinished (Normal): every changed site of a wave is Synced and Healthy and soaked; the next
	// wave may go.
	EventWaveFinished = "WaveFinished"
	// EventRolloutHalted (Warning): a site failed (Degraded, or not Healthy within progressDeadline); the
	// note names the site and carries Argo CD's message. Later waves do not get the revision.
	EventRolloutHalted = "RolloutHalted"
	// EventSiteReverted (Warning): onFailure Revert committed a failed site's last healthy output back.
	EventSiteReverted = "SiteReverted"
	// EventRolloutFrozen (Normal): a freeze window holds a publish; the note says until when.
	EventRolloutFrozen = "RolloutFrozen"
	// EventFreezeOverridden (Warning): the override-freeze annotation published during a freeze window; the
	// note carries its reason.
	EventFreezeOverridden = "FreezeOverridden"
	// ReasonInvalidRollout (Stalled=True, Ready=False): a freeze window's schedule or time zone, or a wave's
	// site pattern, cannot be read. Nothing is published until spec.freeze or spec.waves is fixed.
	ReasonInvalidRollout = "InvalidRollout"
	// EventAnalysisStarted (Normal): a wave's AnalysisRun was created; the note names the run.
	EventAnalysisStarted = "AnalysisStarted"
	// EventAnalysisInconclusive (Warning): a wave's AnalysisRun is Inconclusive; the note says which annotation
	// accepts or rejects it.
	EventAnalysisInconclusive = "AnalysisInconclusive"
	// ReasonAnalysisNotCreated (Stalled=True, Ready=False): a wave's AnalysisRun cannot be created from its
	// templates (one is missing, or their metrics or arguments do not merge). It is tried again each interval.
	ReasonAnalysisNotCreated = "AnalysisNotCreated"
	// EventRolloutPaused (Normal): the annotation siteops.dev/pause-rollout was set; the note carries its reason.
	EventRolloutPaused = "RolloutPaused"
	// EventRolloutResumed (Normal): the annotation siteops.dev/pause-rollout was removed.
	EventRolloutResumed = "RolloutResumed"
	// EventFailureTolerated (Warning): a site failed within its wave's maxFailures; the rollout goes on. The
	// note names the site, why, and the wave's failures against its budget.
	EventFailureTolerated = "FailureTolerated"
)
