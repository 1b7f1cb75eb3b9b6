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
	"k8s.io/apimachinery/pkg/util/intstr"
)

// Annotations that steer a rollout of waves.
const (
	// OverrideFreezeAnnotation publishes one source revision during a freeze window:
	// `siteops.dev/override-freeze: <revision> <reason>`, the revision as the full commit SHA or a prefix of at
	// least 7 characters. The reason goes into an event and into the rendered commit's Siteops-Freeze-Override
	// trailer. Any other revision stays held: the override does not carry over to the next push.
	OverrideFreezeAnnotation = "siteops.dev/override-freeze"
	// ApproveAnnotationPrefix followed by a wave's name approves that wave for one source revision:
	// `siteops.dev/approve-<wave>: <revision>`, the full commit SHA or a prefix of at least 7 characters.
	// Waves with requireApproval wait for it; the approval of an older revision does not count.
	ApproveAnnotationPrefix = "siteops.dev/approve-"
	// PauseRolloutAnnotation pauses the rollout: while it is set nothing new is published, to any wave;
	// rendering, status, soaks, analysis and reverts go on. Its value is the reason, which goes into an event.
	// Remove it (or run `siteops rollout resume`) to resume.
	PauseRolloutAnnotation = "siteops.dev/pause-rollout"
)

// ImplicitWave is the name of the wave that holds the sites no wave of spec.waves names. It comes last.
const ImplicitWave = "unlisted"

// OnFailure says what a halted rollout does with the sites that failed.
// +kubebuilder:validation:Enum=Halt;Revert
type OnFailure string

// What a rollout does with failed sites.
const (
	// OnFailureHalt leaves the failed sites at the revision that failed; later waves do not get it.
	OnFailureHalt OnFailure = "Halt"
	// OnFailureRevert also commits the failed sites' last healthy rendered output back to their folders.
	OnFailureRevert OnFailure = "Revert"
)

// RolloutSpec delivers a change site by site: wave after wave, each gated on the health of the sites before
// it, outside freeze windows and, where asked, after approval. Without waves, freeze windows and a progress
// deadline every changed site is published at once.
type RolloutSpec struct {
	// Waves are delivered in order. A source revision's output is committed for the sites of a wave only
	// once every site of the earlier waves that the revision changed is Synced and Healthy at its rendered
	// commit and has stayed so for that wave's soak. Sites no wave names form an implicit last wave,
	// "unlisted", without soak or approval. A site matching several waves belongs to the first; a wave
	// given as a percentage shares out the sites no wave names.
	// +optional
	// +listType=map
	// +listMapKey=name
	// +kubebuilder:validation:MaxItems=10
	// +kubebuilder:validation:XValidation:rule="self.all(w, self.all(v, v.name == w.name || w.sites.all(s, s.endsWith('%') || !(s in v.sites))))",message="a site or pattern may be listed in one wave only"
	Waves []Wave `json:"waves,omitempty"`

	// ProgressDeadline is how long a published site may take to become Synced and Healthy. A site that is
	// not by then halts the rollout. Empty means no deadline: only Degraded halts.
	// +optional
	// +kubebuilder:validation:Type=string
	// +kubebuilder:validation:Pattern=`^([0-9]+(\.[0-9]+)?(ms|s|m|h))+$`
	// +kubebuilder:validation:XValidation:rule="duration(self) >= duration('10s')",message="progressDeadline must be at least 10s"
	ProgressDeadline *metav1.Duration `json:"progressDeadline,omitempty"`

	// OnFailure is what a halted rollout does with the sites that failed: Halt (default) leaves them, Revert
	// commits their last healthy rendered output back as a new commit (trailer Siteops-Revert-Of). Either
	// way later waves do not get the failed revision; a newer source revision starts a new rollout.
	// +optional
	OnFailure OnFailure `json:"onFailure,omitempty"`

	// Freeze windows hold every publish while one is open: rendering and status still run and say what
	// waits and until when. The annotation siteops.dev/override-freeze: <revision> <reason> publishes that
	// revision anyway. A revert is not held: it restores output that ran before.
	// +optional
	// +listType=atomic
	// +kubebuilder:validation:MaxItems=20
	Freeze []FreezeWindow `json:"freeze,omitempty"`

	// AnalysisRunHistoryLimit is how many of the AnalysisRuns that spec.waves[].analysis creates are kept,
	// newest first; the run of the wave being verified is always kept. Empty means 5.
	// +optional
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=100
	AnalysisRunHistoryLimit *int32 `json:"analysisRunHistoryLimit,omitempty"`

	// RolloutHistoryLimit is how many source revisions status.rollout.history keeps, newest first. Empty
	// means 10.
	// +optional
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=50
	RolloutHistoryLimit *int32 `json:"rolloutHistoryLimit,omitempty"`
}

// Wave is a group of sites published together.
type Wave struct {
	// Name of the wave, used in status, events and the approval annotation siteops.dev/approve-<name>.
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=40
	// +kubebuilder:validation:Pattern=`^[a-z0-9]([-a-z0-9]*[a-z0-9])?$`
	// +kubebuilder:validation:XValidation:rule="self != 'unlisted'",message="unlisted is the name of the implicit last wave"
	Name string `json:"name"`

	// Sites are site names or glob patterns over them (`edge-*`, `eu-[ab]`, as Go's path.Match reads them),
	// or one percentage alone (`25%`): that share, rounded up, of the sites that no wave names and no earlier
	// percentage took, taken in the order of their names, so a site keeps its wave while the fleet stays the
	// same.
	// +required
	// +listType=set
	// +kubebuilder:validation:MinItems=1
	// +kubebuilder:validation:MaxItems=64
	// +kubebuilder:validation:XValidation:rule="self.size() == 1 || self.all(s, !s.endsWith('%'))",message="a percentage stands alone in a wave's sites"
	// +kubebuilder:validation:items:MinLength=1
	// +kubebuilder:validation:items:MaxLength=63
	// +kubebuilder:validation:items:Pattern=`^[a-z0-9*?\[\]^%-]+$`
	// +kubebuilder:validation:items:XValidation:rule="self.indexOf('%') == -1 || self.matches('^([1-9][0-9]?|100)%$')",message="a percentage of the fleet is a whole number from 1% to 100%, as in 25%"
	// +kubebuilder:validation:items:XValidation:rule="self.indexOf('[') == -1 || self.matches('^[^\\\\[\\\\]]*(\\\\[\\\\^?[^\\\\[\\\\]^]+\\\\][^\\\\[\\\\]]*)+$')",message="a site pattern's brackets must pair up, as in eu-[ab]"
	Sites []string `json:"sites"`

	// Soak is how long every changed site of the wave must stay Synced and Healthy before the next wave is
	// published. Empty means none.
	// +optional
	// +kubebuilder:validation:Type=string
	// +kubebuilder:validation:Pattern=`^([0-9]+(\.[0-9]+)?(ms|s|m|h))+$`
	Soak *metav1.Duration `json:"soak,omitempty"`

	// RequireApproval holds the wave until the SiteSync carries the annotation
	// siteops.dev/approve-<name>: <revision> for the revision being rolled out.
	// +optional
	RequireApproval bool `json:"requireApproval,omitempty"`

	// Analysis verifies the wave with an Argo Rollouts AnalysisRun once its changed sites are Synced,
	// Healthy and soaked; the next wave waits for the run to be Successful. Empty means no analysis.
	// +optional
	Analysis *WaveAnalysis `json:"analysis,omitempty"`

	// MaxFailures is how many of the wave's changed sites may fail (Degraded, or not Healthy within
	// progressDeadline) while the rollout goes on: a count, or a percentage of those sites rounded down.
	// Each failed site is left at its output, or reverted with onFailure Revert, alone; one failure more
	// halts the rollout. The first wave is the canary: any failure there halts, whatever its maxFailures.
	// A failed analysis halts the rollout too. Empty means 0.
	// +optional
	// +kubebuilder:validation:XIntOrString
	// +kubebuilder:validation:MaxLength=4
	// +kubebuilder:validation:XValidation:rule="type(self) == int ? self >= 0 : self.matches('^([0-9]|[1-9][0-9]|100)%$')",message="maxFailures is a count of 0 or more, or a percentage from 0% to 100%"
	MaxFailures *intstr.IntOrString `json:"maxFailures,omitempty"`

	// MaxConcurrent is how many of the wave's changed sites are published at a time: the next are published
	// as earlier ones become Synced and Healthy (or fail within maxFailures). Empty means all at once.
	// +optional
	// +kubebuilder:validation:Minimum=1
	MaxConcurrent *int32 `json:"maxConcurrent,omitempty"`
}

// FreezeWindow is a recurring period in which nothing is published.
type FreezeWindow struct {
	// Schedule is when the window opens, in cron format (minute hour day-of-month month day-of-week) or a
	// descriptor such as @daily, read in timeZone.
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=256
	// +kubebuilder:validation:XValidation:rule="!self.contains('TZ=')",message="CRON_TZ= and TZ= are not supported in schedule: set timeZone instead"
	// +kubebuilder:validation:XValidation:rule="self.matches('^[ \\t]*(@(yearly|annually|monthly|weekly|daily|midnight|hourly)|[0-9*,/?LW#A-Za-z-]+([ \\t]+[0-9*,/?LW#A-Za-z-]+){4})[ \\t]*$')",message="schedule must have five fields (minute hour day-of-month month day-of-week) or be a descriptor such as @daily"
	Schedule string `json:"schedule"`

	// Duration is how long the window stays open after each time the schedule fires.
	// +required
	// +kubebuilder:validation:Type=string
	// +kubebuilder:validation:Pattern=`^([0-9]+(\.[0-9]+)?(ms|s|m|h))+$`
	// +kubebuilder:validation:XValidation:rule="duration(self) >= duration('1m')",message="duration must be at least 1m"
	Duration metav1.Duration `json:"duration"`

	// TimeZone is the IANA name of the zone the schedule is read in, e.g. Europe/Berlin. Empty means UTC.
	// +optional
	// +kubebuilder:validation:MaxLength=64
	// +kubebuilder:validation:Pattern=`^(UTC|[A-Z][A-Za-z_+-]*(/[A-Za-z0-9_+-]+){1,2})$`
	TimeZone string `json:"timeZone,omitempty"`
}

// RolloutPhase says in one word where a rollout is.
type RolloutPhase string

// Rollout phases, in status.rollout.phase.
const (
	// RolloutProgressing: sites of the current wave are published and not yet Synced and Healthy.
	RolloutProgressing RolloutPhase = "Progressing"
	// RolloutSoaking: the current wave's sites are Synced and Healthy; the next wave waits for the soak.
	RolloutSoaking RolloutPhase = "Soaking"
	// RolloutHalted: a site failed (Degraded, or not Healthy within progressDeadline); later waves do not get
	// the revision. A site whose overlay failed to render halts it too, once the other sites are done. A newer
	// source revision starts a new rollout.
	RolloutHalted RolloutPhase = "Halted"
	// RolloutFrozen: a freeze window holds the next publish until frozenUntil.
	RolloutFrozen RolloutPhase = "Frozen"
	// RolloutWaitingForApproval: the next wave requires approval; the message says which annotation gives it.
	RolloutWaitingForApproval RolloutPhase = "WaitingForApproval"
	// RolloutComplete: every site the revision changes runs it (Synced and Healthy, soaked).
	RolloutComplete RolloutPhase = "Complete"
	// RolloutAnalyzing: the current wave's sites are Synced, Healthy and soaked; its AnalysisRun runs.
	RolloutAnalyzing RolloutPhase = "Analyzing"
	// RolloutInconclusive: the current wave's AnalysisRun is Inconclusive; a person accepts or rejects it with
	// the annotation the message names.
	RolloutInconclusive RolloutPhase = "Inconclusive"
	// RolloutPaused: the annotation siteops.dev/pause-rollout holds the next publish until it is removed.
	RolloutPaused RolloutPhase = "Paused"
)

// SiteRolloutState says where one site is in the rollout.
type SiteRolloutState string

// Site states of a rollout, in status.rollout.sites[].state.
const (
	// SiteUnchanged: the revision does not change the site's output.
	SiteUnchanged SiteRolloutState = "Unchanged"
	// SitePending: the revision changes the site, and its wave is not published yet; waitingFor says why.
	SitePending SiteRolloutState = "Pending"
	// SitePublished: the revision's output is committed to the site's folder.
	SitePublished SiteRolloutState = "Published"
	// SiteHalted: the site failed at the revision and halted the rollout.
	SiteHalted SiteRolloutState = "Halted"
	// SiteReverted: the site failed and its last healthy output was committed back.
	SiteReverted SiteRolloutState = "Reverted"
	// SiteFailed: the site failed at the revision within its wave's maxFailures; it stays at the failed
	// output while the rollout goes on (onFailure Revert reverts it instead). A site whose overlay failed to
	// render is Failed too, outside the budget and never reverted: its folder keeps an older output.
	SiteFailed SiteRolloutState = "Failed"
)

// RolloutStatus is where the rollout of the newest source revision is, wave by wave.
type RolloutStatus struct {
	// Phase is Progressing, Soaking, Analyzing, Inconclusive, Paused, Halted, Frozen, WaitingForApproval or
	// Complete.
	// +optional
	Phase RolloutPhase `json:"phase,omitempty"`
	// Revision is the source revision being rolled out.
	// +optional
	Revision string `json:"revision,omitempty"`
	// Wave is the wave being published or soaked, or the one that halted.
	// +optional
	Wave string `json:"wave,omitempty"`
	// Message says what the rollout waits for, or which site halted it and Argo CD's message.
	// +optional
	// +kubebuilder:validation:MaxLength=2048
	Message string `json:"message,omitempty"`
	// Paused is true while the annotation siteops.dev/pause-rollout is set.
	// +optional
	Paused bool `json:"paused,omitempty"`
	// FrozenUntil is when the open freeze window closes.
	// +optional
	FrozenUntil *metav1.Time `json:"frozenUntil,omitempty"`
	// Analysis is the AnalysisRun of the wave being verified, or of the one whose analysis halted the rollout.
	// +optional
	Analysis *WaveAnalysisStatus `json:"analysis,omitempty"`
	// Sites is each site's place in the rollout, sorted by name.
	// +optional
	// +listType=map
	// +listMapKey=name
	Sites []RolloutSite `json:"sites,omitempty"`
	// History is the rollout of the last source revisions, newest first (spec.rolloutHistoryLimit of them).
	// +optional
	// +listType=atomic
	// +kubebuilder:validation:MaxItems=50
	History []RolloutRecord `json:"history,omitempty"`
}

// RolloutSite is one site's place in the rollout.
type RolloutSite struct {
	// Name of the site.
	Name string `json:"name"`
	// Wave the site belongs to.
	// +optional
	Wave string `json:"wave,omitempty"`
	// State is Unchanged, Pending, Published, Failed, Halted or Reverted.
	// +optional
	State SiteRolloutState `json:"state,omitempty"`
	// WaitingFor says what a pending or published site waits for: an earlier wave, the soak, a freeze
	// window, an approval, or Argo CD.
	// +optional
	WaitingFor string `json:"waitingFor,omitempty"`
	// PublishedAt is when the rollout committed the revision's output for the site.
	// +optional
	PublishedAt *metav1.Time `json:"publishedAt,omitempty"`
	// SoakUntil is when the site's soak ends.
	// +optional
	SoakUntil *metav1.Time `json:"soakUntil,omitempty"`
	// DeliveredAt is when the site was first Synced and Healthy at the rollout's revision. From then on the
	// progress deadline no longer applies to it; Degraded still fails it.
	// +optional
	DeliveredAt *metav1.Time `json:"deliveredAt,omitempty"`
	// LastHealthyCommit is the rendered commit at which the site was last Synced and Healthy: what a revert
	// restores.
	// +optional
	LastHealthyCommit string `json:"lastHealthyCommit,omitempty"`
	// LastHealthyRevision is the source revision of lastHealthyCommit's output for the site.
	// +optional
	LastHealthyRevision string `json:"lastHealthyRevision,omitempty"`
}
