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

// RequestedAtAnnotation asks the SiteSync controller to sync now. The push receiver sets it to the time of
// the push; any new value triggers a sync, and status.lastHandledTrigger records the value last handled.
const RequestedAtAnnotation = "gitops.siteops.dev/requestedAt"

// SiteSyncSpec says which Git repository holds the kustomize overlays, which sites to render, and where the
// rendered output is published for Argo CD.
// +kubebuilder:validation:XValidation:rule="(has(self.target.url) && self.target.url != self.source.url) || !has(self.source.ref) || self.source.ref != self.target.branch",message="target.branch must differ from source.ref when both are in the same repository, or rendered commits would feed back into the source",fieldPath=".target.branch"
type SiteSyncSpec struct {
	// Source is the Git repository with the kustomize base and the site overlays.
	// +required
	Source GitSource `json:"source"`

	// Sites lists the overlays to render, by folder name under source.overlaysDir. Empty renders every
	// folder there that holds a kustomization.
	// +optional
	// +listType=set
	// +kubebuilder:validation:MaxItems=256
	// +kubebuilder:validation:items:MinLength=1
	// +kubebuilder:validation:items:MaxLength=63
	// +kubebuilder:validation:items:Pattern=`^[a-z0-9]([-a-z0-9]*[a-z0-9])?$`
	Sites []string `json:"sites,omitempty"`

	// Target is where the rendered manifests are committed. Its URL defaults to the source URL.
	// +optional
	// +kubebuilder:default={}
	Target GitTarget `json:"target,omitempty"`

	// Interval is how often the source is checked for new commits (jittered by ±10%). At least 10s.
	// +optional
	// +kubebuilder:default="1m"
	// +kubebuilder:validation:Type=string
	// +kubebuilder:validation:Pattern=`^([0-9]+(\.[0-9]+)?(ms|s|m|h))+$`
	// +kubebuilder:validation:XValidation:rule="duration(self) >= duration('10s')",message="interval must be at least 10s"
	Interval *metav1.Duration `json:"interval,omitempty"`

	// Suspend stops syncing; the last rendered output stays where it is.
	// +optional
	Suspend bool `json:"suspend,omitempty"`

	// Timeout bounds one sync: fetch, render and push. At least 1s.
	// +optional
	// +kubebuilder:default="2m"
	// +kubebuilder:validation:Type=string
	// +kubebuilder:validation:Pattern=`^([0-9]+(\.[0-9]+)?(ms|s|m|h))+$`
	// +kubebuilder:validation:XValidation:rule="duration(self) >= duration('1s')",message="timeout must be at least 1s"
	Timeout *metav1.Duration `json:"timeout,omitempty"`

	// Receiver enables the push receiver endpoint POST /hook/<namespace>/<name> for this SiteSync.
	// +optional
	Receiver *Receiver `json:"receiver,omitempty"`

	// Delivery says where the Argo CD Applications of the sites are, to report their sync status and health.
	// +optional
	Delivery *Delivery `json:"delivery,omitempty"`

	// Validation says what the rendered objects are checked against before they are published. Empty
	// enforces the schemas of the default Kubernetes version and the repository's CRDs.
	// +optional
	Validation *Validation `json:"validation,omitempty"`

	// Policy names the admission policies the rendered objects must pass before they are published.
	// +optional
	Policy *Policy `json:"policy,omitempty"`

	// RolloutSpec delivers a change wave by wave: spec.waves, spec.progressDeadline, spec.onFailure and
	// spec.freeze (sitesync_waves_types.go).
	RolloutSpec `json:",inline"`
}

// GitSource is the repository, revision and folder the site overlays are read from.
type GitSource struct {
	// URL of the repository: https://, http://, ssh://, file:// or the scp form user@host:path.
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=2048
	// +kubebuilder:validation:XValidation:rule="self.matches('^(https?|ssh|file)://[^\\\\s]+$') || self.matches('^[A-Za-z0-9._-]+@[A-Za-z0-9.-]+:[^\\\\s/][^\\\\s]*$')",message="url must use https, http, ssh or file, or the scp form user@host:path"
	URL string `json:"url"`

	// Ref is the branch, tag or full commit SHA to render. Empty means the default branch.
	// +optional
	// +kubebuilder:validation:MaxLength=255
	// +kubebuilder:validation:Pattern=`^[^\s~^:?*\[\\]+$`
	// +kubebuilder:validation:XValidation:rule="!self.startsWith('-') && !self.contains('..') && !self.endsWith('/') && !self.endsWith('.lock')",message="ref must be a valid branch, tag or commit name"
	Ref string `json:"ref,omitempty"`

	// SecretRef names a Secret in the SiteSync's namespace with the credentials: `username` and `password`
	// (or `token`) for HTTP(S), `identity` and `known_hosts` for SSH, and optionally `ca.crt`: PEM
	// certificates of a private CA that HTTPS connections trust on top of the system's.
	// +optional
	SecretRef *LocalSecretReference `json:"secretRef,omitempty"`

	// Verify, when set, renders only source commits signed by one of the trusted OpenPGP keys. A commit that
	// is unsigned or signed by another key is not rendered: the SiteSync stalls with reason
	// SourceNotVerified and the rendered branch keeps the last verified output.
	// +optional
	Verify *SourceVerification `json:"verify,omitempty"`

	// OverlaysDir is the folder, relative to the repository root, holding one folder per site.
	// +optional
	// +kubebuilder:default="overlays"
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=255
	// +kubebuilder:validation:XValidation:rule="!self.startsWith('/') && !self.split('/').exists(p, p == '..')",message="overlaysDir must be a relative path inside the repository"
	OverlaysDir string `json:"overlaysDir,omitempty"`
}

// GitTarget is where the rendered manifests of every site are committed.
type GitTarget struct {
	// URL of the repository that receives the rendered branch. Empty means source.url.
	// +optional
	// +kubebuilder:validation:MaxLength=2048
	// +kubebuilder:validation:XValidation:rule="self.matches('^(https?|ssh|file)://[^\\\\s]+$') || self.matches('^[A-Za-z0-9._-]+@[A-Za-z0-9.-]+:[^\\\\s/][^\\\\s]*$')",message="url must use https, http, ssh or file, or the scp form user@host:path"
	URL string `json:"url,omitempty"`

	// Branch receives the rendered commits; Argo CD follows it.
	// +optional
	// +kubebuilder:default="rendered"
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=255
	// +kubebuilder:validation:Pattern=`^[^\s~^:?*\[\\]+$`
	// +kubebuilder:validation:XValidation:rule="!self.startsWith('-') && !self.startsWith('/') && !self.contains('..') && !self.endsWith('/') && !self.endsWith('.lock')",message="branch must be a valid Git branch name"
	Branch string `json:"branch,omitempty"`

	// PathTemplate is the folder each site's output is written to, a Go template with {{.Site}}.
	// +optional
	// +kubebuilder:default="{{.Site}}"
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=255
	// +kubebuilder:validation:XValidation:rule="self.contains('{{.Site}}')",message="pathTemplate must contain {{.Site}} so every site gets its own folder"
	// +kubebuilder:validation:XValidation:rule="!self.startsWith('/') && !self.split('/').exists(p, p == '..')",message="pathTemplate must be a relative path inside the repository"
	PathTemplate string `json:"pathTemplate,omitempty"`

	// SecretRef names a Secret with the push credentials (same keys as source.secretRef). Empty means the
	// source credentials when the URL is the same, none otherwise.
	// +optional
	SecretRef *LocalSecretReference `json:"secretRef,omitempty"`

	// SigningKey, when set, signs every commit siteops pushes with an OpenPGP key, and each site's provenance
	// attestation (a DSSE envelope at .siteops/attestations/<site>.intoto.json on the rendered branch). A key
	// that cannot be read stalls the SiteSync (reason SigningKeyInvalid) and nothing is pushed unsigned.
	// +optional
	SigningKey *SigningKey `json:"signingKey,omitempty"`

	// OCI, when set, also publishes each site's folder as an OCI artifact that Argo CD's OCI source syncs,
	// once the rendered commit is pushed (sitesync_oci_types.go).
	// +optional
	OCI *OCITarget `json:"oci,omitempty"`
}

// SourceVerification says which source commits may be rendered.
type SourceVerification struct {
	// Mode is what is verified. HEAD: the commit source.ref points at must carry a valid OpenPGP signature
	// by a trusted key.
	// +optional
	// +kubebuilder:default=HEAD
	// +kubebuilder:validation:Enum=HEAD
	Mode string `json:"mode,omitempty"`

	// SecretRef names a Secret in the SiteSync's namespace whose every key holds ASCII-armored OpenPGP
	// public keys of trusted signers (e.g. `alice.asc`, `bob.asc`).
	// +required
	SecretRef LocalSecretReference `json:"secretRef"`
}

// SigningKey names the OpenPGP key rendered commits are signed with.
type SigningKey struct {
	// SecretRef names a Secret in the SiteSync's namespace with the ASCII-armored OpenPGP private key in key
	// `git.asc` and, when the key is protected, its passphrase in key `passphrase`.
	// +required
	SecretRef LocalSecretReference `json:"secretRef"`
}

// Receiver configures the push receiver for one SiteSync.
type Receiver struct {
	// SecretRef names a Secret in the SiteSync's namespace whose key `token` verifies the webhook: the HMAC
	// key for GitHub, Gitea and Forgejo signatures, the shared token for GitLab.
	// +required
	SecretRef LocalSecretReference `json:"secretRef"`
}

// LocalSecretReference names a Secret in the same namespace.
type LocalSecretReference struct {
	// Name of the Secret.
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=253
	// +kubebuilder:validation:Pattern=`^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$`
	Name string `json:"name"`
}

// SiteStatus is the last known state of one site.
type SiteStatus struct {
	// Name of the site (its folder under overlaysDir).
	Name string `json:"name"`
	// InputDigest is the digest of every file the site's kustomization graph reaches.
	// +optional
	InputDigest string `json:"inputDigest,omitempty"`
	// Ready is true when the site's last render succeeded.
	Ready bool `json:"ready"`
	// Reason says in one word why the site is not ready: InvalidSiteName, GuardRefused, KustomizeError,
	// PlaintextSecret, ValidationFailed, PolicyDenied or NotPublished.
	// +optional
	Reason string `json:"reason,omitempty"`
	// Message is the kustomize or guard error when the site is not ready.
	// +optional
	Message string `json:"message,omitempty"`
	// Warnings are non-fatal findings, such as deprecated kustomization fields.
	// +optional
	// +listType=atomic
	Warnings []string `json:"warnings,omitempty"`
	// LastRenderedRevision is the source commit whose output is on the target branch for this site.
	// +optional
	LastRenderedRevision string `json:"lastRenderedRevision,omitempty"`
	// Policy is what spec.policy's admission policies made of the site's last rendered objects.
	// +optional
	Policy *SitePolicyStatus `json:"policy,omitempty"`
	// OCI is the site's artifact in spec.target.oci's repository.
	// +optional
	OCI *SiteOCIStatus `json:"oci,omitempty"`
	// SiteDelivery is what Argo CD reports of the site's Application.
	SiteDelivery `json:",inline"`
}

// SiteSyncStatus is what the controller last saw and published.
type SiteSyncStatus struct {
	// ObservedGeneration is the generation of the spec the status describes.
	// +optional
	ObservedGeneration int64 `json:"observedGeneration,omitempty"`

	// Conditions are Ready, Reconciling and Stalled (kstatus), and ForeignCommits.
	// +optional
	// +listType=map
	// +listMapKey=type
	Conditions []metav1.Condition `json:"conditions,omitempty"`

	// SourceRevision is the source commit SHA last rendered.
	// +optional
	SourceRevision string `json:"sourceRevision,omitempty"`

	// RenderedRevision is the head of the target branch after the last sync.
	// +optional
	RenderedRevision string `json:"renderedRevision,omitempty"`

	// Sites is the state of every site, sorted by name.
	// +optional
	// +listType=map
	// +listMapKey=name
	Sites []SiteStatus `json:"sites,omitempty"`

	// LastSyncTime is when the last sync finished, successfully or not.
	// +optional
	LastSyncTime *metav1.Time `json:"lastSyncTime,omitempty"`

	// LastHandledTrigger is the value of the gitops.siteops.dev/requestedAt annotation last handled.
	// +optional
	LastHandledTrigger string `json:"lastHandledTrigger,omitempty"`

	// Delivered counts the sites synced and healthy at their rendered commit, as "2/3", and, with a rollout, at
	// its revision (Unchanged or Published): a failed render or a held, failed or reverted site does not count.
	// Empty when delivery is not observed.
	// +optional
	Delivered string `json:"delivered,omitempty"`

	// Rollout is where the newest source revision is on its way through spec.waves; empty without waves,
	// freeze windows or a progress deadline.
	// +optional
	Rollout *RolloutStatus `json:"rollout,omitempty"`
	// History records, newest first, the delivery of the last source revisions that changed a site: the times
	// the delivery ledger (`siteops ledger`, siteops_ledger_* metrics) needs and Git does not keep. It is kept
	// with or without waves; status.rollout.history adds, for a rollout of waves, each wave's times, analysis
	// and approvals.
	// +optional
	// +listType=atomic
	// +kubebuilder:validation:MaxItems=30
	History []RevisionRecord `json:"history,omitempty"`
}

// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
// +kubebuilder:resource:shortName=ss;sitesync
// +kubebuilder:printcolumn:name="SOURCE",type=string,JSONPath=`.status.sourceRevision`
// +kubebuilder:printcolumn:name="RENDERED",type=string,JSONPath=`.status.renderedRevision`
// +kubebuilder:printcolumn:name="DELIVERED",type=string,JSONPath=`.status.delivered`
// +kubebuilder:printcolumn:name="ROLLOUT",type=string,JSONPath=`.status.rollout.phase`
// +kubebuilder:printcolumn:name="READY",type=string,JSONPath=`.status.conditions[?(@.type=="Ready")].status`
// +kubebuilder:printcolumn:name="STATUS",type=string,JSONPath=`.status.conditions[?(@.type=="Ready")].message`,priority=1
// +kubebuilder:printcolumn:name="AGE",type=date,JSONPath=`.metadata.creationTimestamp`

// SiteSync renders the kustomize overlays of a Git repository, one per site, and commits the output to a
// rendered branch that Argo CD syncs.
type SiteSync struct {
	metav1.TypeMeta `json:",inline"`
	// +optional
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// +required
	Spec SiteSyncSpec `json:"spec"`

	// +optional
	Status SiteSyncStatus `json:"status,omitempty"`
}

// +kubebuilder:object:root=true

// SiteSyncList contains a list of SiteSync.
type SiteSyncList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []SiteSync `json:"items"`
}
