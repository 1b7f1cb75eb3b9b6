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

// Annotations that settle an Inconclusive analysis of a wave.
const (
	// AcceptAnalysisAnnotationPrefix followed by a wave's name accepts that wave's Inconclusive analysis for one
	// source revision: `siteops.dev/accept-analysis-<wave>: <revision>` (the full SHA or 7+ characters). The
	// wave then completes as if the run had been Successful.
	AcceptAnalysisAnnotationPrefix = "siteops.dev/accept-analysis-"
	// RejectAnalysisAnnotationPrefix followed by a wave's name rejects that wave's Inconclusive analysis for one
	// source revision: the rollout halts (or reverts, with onFailure Revert) as if the run had Failed.
	RejectAnalysisAnnotationPrefix = "siteops.dev/reject-analysis-"
)

// Labels siteops puts on the AnalysisRuns it creates, besides LabelSiteSync naming the SiteSync.
const (
	// LabelWave names the wave an AnalysisRun verifies.
	LabelWave = "gitops.siteops.dev/wave"
	// LabelRevision is the source revision an AnalysisRun verifies.
	LabelRevision = "gitops.siteops.dev/revision"
)

// The arguments siteops passes to every AnalysisRun it creates; spec.waves[].analysis.args may not set them.
const (
	// AnalysisArgSite is the wave's first changed site by name: the site, for a wave of one site.
	AnalysisArgSite = "site"
	// AnalysisArgSites is the wave's changed sites, comma-separated, sorted by name.
	AnalysisArgSites = "sites"
	// AnalysisArgWave is the wave's name.
	AnalysisArgWave = "wave"
	// AnalysisArgRevision is the source revision rolled out.
	AnalysisArgRevision = "revision"
	// AnalysisArgRenderedCommit is the rendered commit the wave's sites run.
	AnalysisArgRenderedCommit = "renderedCommit"
)

// DefaultAnalysisRunHistoryLimit is how many AnalysisRuns of a SiteSync are kept when
// spec.analysisRunHistoryLimit is not set.
const DefaultAnalysisRunHistoryLimit = 5

// WaveAnalysis verifies a wave with Argo Rollouts analysis: once the wave's changed sites are Synced and
// Healthy and soaked, siteops creates one AnalysisRun from the templates, with the arguments below and
// site, sites, wave, revision and renderedCommit, in the SiteSync's namespace. The next wave goes only when
// the run is Successful. It reads as a Rollout's analysis step does.
type WaveAnalysis struct {
	// Templates are the AnalysisTemplates (in the SiteSync's namespace) or ClusterAnalysisTemplates whose
	// metrics the run measures, merged as a Rollout merges them.
	// +required
	// +listType=atomic
	// +kubebuilder:validation:MinItems=1
	// +kubebuilder:validation:MaxItems=10
	Templates []AnalysisTemplateRef `json:"templates"`

	// Args are the values of the templates' arguments that siteops does not set.
	// +optional
	// +listType=map
	// +listMapKey=name
	// +kubebuilder:validation:MaxItems=20
	Args []AnalysisArgument `json:"args,omitempty"`
}

// AnalysisTemplateRef names an AnalysisTemplate or, with clusterScope, a ClusterAnalysisTemplate.
type AnalysisTemplateRef struct {
	// TemplateName is the template's name.
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=253
	// +kubebuilder:validation:Pattern=`^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$`
	TemplateName string `json:"templateName"`
	// ClusterScope reads the template as a ClusterAnalysisTemplate.
	// +optional
	ClusterScope bool `json:"clusterScope,omitempty"`
}

// AnalysisArgument is the value of one template argument.
type AnalysisArgument struct {
	// Name of the argument, as the template declares it.
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=253
	// +kubebuilder:validation:XValidation:rule="!(self in ['site', 'sites', 'wave', 'revision', 'renderedCommit'])",message="site, sites, wave, revision and renderedCommit are set by siteops"
	Name string `json:"name"`
	// Value of the argument.
	// +required
	// +kubebuilder:validation:MaxLength=4096
	Value string `json:"value"`
}

// WaveAnalysisStatus is the AnalysisRun of the wave in status.rollout.wave, for the revision rolled out.
type WaveAnalysisStatus struct {
	// Wave the run verifies.
	Wave string `json:"wave"`
	// Run is the AnalysisRun's name, in the SiteSync's namespace.
	// +optional
	Run string `json:"run,omitempty"`
	// Phase is the run's phase: Pending, Running, Successful, Failed, Error or Inconclusive; empty before the
	// run exists.
	// +optional
	Phase string `json:"phase,omitempty"`
	// Message is the run's message, or why it could not be created.
	// +optional
	// +kubebuilder:validation:MaxLength=1024
	Message string `json:"message,omitempty"`
	// StartedAt is when siteops created the run.
	// +optional
	StartedAt *metav1.Time `json:"startedAt,omitempty"`
	// Metrics are the results of the run's metrics that did not succeed, with their last measurements.
	// +optional
	// +listType=atomic
	// +kubebuilder:validation:MaxItems=20
	Metrics []AnalysisMetricStatus `json:"metrics,omitempty"`
}

// AnalysisMetricStatus is one metric's result in a run.
type AnalysisMetricStatus struct {
	// Name of the metric.
	Name string `json:"name"`
	// Phase of the metric: Running, Successful, Failed, Error or Inconclusive.
	// +optional
	Phase string `json:"phase,omitempty"`
	// Message is the metric's message (an Error's cause).
	// +optional
	// +kubebuilder:validation:MaxLength=1024
	Message string `json:"message,omitempty"`
	// Measurements are the metric's last measurements, oldest first: phase and value.
	// +optional
	// +listType=atomic
	// +kubebuilder:validation:MaxItems=5
	Measurements []AnalysisMeasurement `json:"measurements,omitempty"`
}

// AnalysisMeasurement is one measurement of a metric.
type AnalysisMeasurement struct {
	// Phase of the measurement: Successful, Failed, Error or Inconclusive.
	// +optional
	Phase string `json:"phase,omitempty"`
	// Value measured, as Argo Rollouts records it.
	// +optional
	// +kubebuilder:validation:MaxLength=256
	Value string `json:"value,omitempty"`
	// FinishedAt is when the measurement was taken.
	// +optional
	FinishedAt *metav1.Time `json:"finishedAt,omitempty"`
}
