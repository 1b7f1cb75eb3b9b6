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

// The manager Rollout a SiteSync reports on when spec.managerRollout leaves a field empty: base/install's
// namespace and the name its namePrefix gives base/manager's Rollout.
const (
	DefaultManagerRolloutNamespace = "siteops-system"
	DefaultManagerRolloutName      = "siteops-manager"
)

// ManagerRolloutReference names the Argo Rollouts Rollout that runs siteops' own manager (blue/green), whose
// state SiteSync status reports for the person promoting an upgrade.
type ManagerRolloutReference struct {
	// Namespace of the Rollout; empty means siteops-system.
	// +optional
	// +kubebuilder:validation:MaxLength=63
	// +kubebuilder:validation:Pattern=`^[a-z0-9]([-a-z0-9]*[a-z0-9])?$`
	Namespace string `json:"namespace,omitempty"`
	// Name of the Rollout; empty means siteops-manager.
	// +optional
	// +kubebuilder:validation:MaxLength=253
	// +kubebuilder:validation:Pattern=`^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$`
	Name string `json:"name,omitempty"`
}

// ShadowVerdict is what the latest pre-promotion analysis of the manager's newest revision (the shadow report
// of the preview colour) concluded.
// +kubebuilder:validation:Enum=Successful;Failed;Running;None
type ShadowVerdict string

// Shadow verdicts.
const (
	// ShadowVerdictSuccessful: the analysis passed; the preview showed no unexpected writes.
	ShadowVerdictSuccessful ShadowVerdict = "Successful"
	// ShadowVerdictFailed: the analysis failed, errored or was inconclusive; the Rollout does not promote.
	ShadowVerdictFailed ShadowVerdict = "Failed"
	// ShadowVerdictRunning: the analysis is pending or still measuring.
	ShadowVerdictRunning ShadowVerdict = "Running"
	// ShadowVerdictNone: no pre-promotion analysis ran for the newest revision.
	ShadowVerdictNone ShadowVerdict = "None"
)

// ManagerStatus is the state of the manager Rollout, as the person promoting a siteops upgrade needs it.
type ManagerStatus struct {
	// Rollout is the namespace/name of the Rollout read.
	Rollout string `json:"rollout"`
	// Phase is the Rollout's status.phase: Healthy, Paused, Progressing or Degraded.
	// +optional
	Phase string `json:"phase,omitempty"`
	// Message is the Rollout's status.message, such as why it is paused or aborted.
	// +optional
	Message string `json:"message,omitempty"`
	// StableImage is the manager image of the stable (active) colour.
	// +optional
	StableImage string `json:"stableImage,omitempty"`
	// PreviewImage is the manager image of the preview colour; empty when the newest revision is the stable one.
	// +optional
	PreviewImage string `json:"previewImage,omitempty"`
	// ShadowVerdict is the result of the latest pre-promotion AnalysisRun of the newest revision.
	ShadowVerdict ShadowVerdict `json:"shadowVerdict"`
	// AnalysisRun names that AnalysisRun.
	// +optional
	AnalysisRun string `json:"analysisRun,omitempty"`
}
