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

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// DefaultRolloutHistoryLimit is how many revisions status.rollout.history keeps when spec.rolloutHistoryLimit
// is not set.
const DefaultRolloutHistoryLimit = 10

// UnknownActor is recorded as who approved a wave, overrode a freeze or settled an analysis when the SiteSync's
// managedFields name no field manager for the annotation.
const UnknownActor = "unknown"

// RolloutOutcome is how the rollout of one source revision ended.
type RolloutOutcome string

// Outcomes of a rollout, in status.rollout.history[].outcome. Empty means the rollout is still going on.
const (
	// OutcomeComplete: every site the revision changes runs it.
	OutcomeComplete RolloutOutcome = "Complete"
	// OutcomeHalted: a site or an analysis failed; later waves did not get the revision.
	OutcomeHalted RolloutOutcome = "Halted"
	// OutcomeReverted: the rollout halted and onFailure Revert committed failed sites' last healthy output back.
	OutcomeReverted RolloutOutcome = "Reverted"
	// OutcomeSuperseded: a newer source revision started its rollout before this one completed or halted.
	OutcomeSuperseded RolloutOutcome = "Superseded"
)

// RolloutRecord is the rollout of one source revision: when it ran, wave by wave, and how it ended. Only
// revisions that change the output of at least one site are recorded.
type RolloutRecord struct {
	// Revision is the source revision rolled out.
	Revision string `json:"revision"`
	// RenderedCommits are the rendered commits that published the revision's output, oldest first.
	// +optional
	// +listType=atomic
	// +kubebuilder:validation:MaxItems=20
	RenderedCommits []string `json:"renderedCommits,omitempty"`
	// StartedAt is when siteops first planned the revision's rollout.
	// +optional
	StartedAt *metav1.Time `json:"startedAt,omitempty"`
	// EndedAt is when the rollout got its outcome.
	// +optional
	EndedAt *metav1.Time `json:"endedAt,omitempty"`
	// Outcome is Complete, Halted, Reverted or Superseded; empty while the rollout goes on.
	// +optional
	Outcome RolloutOutcome `json:"outcome,omitempty"`
	// Message says why a rollout halted.
	// +optional
	// +kubebuilder:validation:MaxLength=512
	Message string `json:"message,omitempty"`
	// Waves are the waves the revision was published to, in order.
	// +optional
	// +listType=map
	// +listMapKey=name
	// +kubebuilder:validation:MaxItems=11
	Waves []WaveRecord `json:"waves,omitempty"`
}

// WaveRecord is one wave of a recorded rollout. Who approved or overrode is the field manager that last set
// the annotation (from the SiteSync's managedFields, e.g. kubectl-annotate), not a user name: see docs/waves.md.
type WaveRecord struct {
	// Name of the wave.
	Name string `json:"name"`
	// StartedAt is when the wave's sites were committed.
	// +optional
	StartedAt *metav1.Time `json:"startedAt,omitempty"`
	// FinishedAt is when every changed site of the wave was Synced, Healthy, soaked and, where asked, analyzed.
	// +optional
	FinishedAt *metav1.Time `json:"finishedAt,omitempty"`
	// ApprovedBy is the field manager of the siteops.dev/approve-<wave> annotation that let the wave go.
	// +optional
	// +kubebuilder:validation:MaxLength=128
	ApprovedBy string `json:"approvedBy,omitempty"`
	// FreezeOverriddenBy is the field manager of the siteops.dev/override-freeze annotation that published the
	// wave during a freeze window.
	// +optional
	// +kubebuilder:validation:MaxLength=128
	FreezeOverriddenBy string `json:"freezeOverriddenBy,omitempty"`
	// FreezeOverrideReason is the reason the override annotation gave.
	// +optional
	// +kubebuilder:validation:MaxLength=256
	FreezeOverrideReason string `json:"freezeOverrideReason,omitempty"`
	// Analysis is the result of the wave's AnalysisRun.
	// +optional
	Analysis *AnalysisRecord `json:"analysis,omitempty"`
}

// AnalysisRecord is the result of a wave's AnalysisRun, as the history keeps it.
type AnalysisRecord struct {
	// Run is the AnalysisRun's name.
	// +optional
	Run string `json:"run,omitempty"`
	// Phase is the run's last phase seen.
	// +optional
	Phase string `json:"phase,omitempty"`
	// Metric is the first metric that did not succeed.
	// +optional
	Metric string `json:"metric,omitempty"`
	// Message is that metric's message or last measured value, or the run's message.
	// +optional
	// +kubebuilder:validation:MaxLength=256
	Message string `json:"message,omitempty"`
	// AcceptedBy is the field manager of the siteops.dev/accept-analysis-<wave> annotation that accepted an
	// Inconclusive run.
	// +optional
	// +kubebuilder:validation:MaxLength=128
	AcceptedBy string `json:"acceptedBy,omitempty"`
	// RejectedBy is the field manager of the siteops.dev/reject-analysis-<wave> annotation that rejected an
	// Inconclusive run.
	// +optional
	// +kubebuilder:validation:MaxLength=128
	RejectedBy string `json:"rejectedBy,omitempty"`
}
