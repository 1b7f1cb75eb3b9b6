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

// OCITarget is the OCI repository each site's rendered folder is published to, beside the rendered branch.
// Each site's artifact is one tar+gzip layer of the folder's files (application/vnd.oci.image.layer.v1.tar+gzip),
// tagged `<site>-<rendered commit, 12 characters>` and `<site>`; Argo CD 3.1+ syncs it with
// `repoURL: oci://<repository>`, `targetRevision: <site>` and `path: .`. When target.signingKey is set, the
// site's provenance attestation (a DSSE envelope) is attached as an OCI 1.1 referrer of the artifact.
type OCITarget struct {
	// Repository is the registry host and repository path, without scheme or tag: registry.example.com/sites.
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=255
	// +kubebuilder:validation:Pattern=`^[a-zA-Z0-9.-]+(:[0-9]+)?/[a-z0-9]+([._/-][a-z0-9]+)*$`
	Repository string `json:"repository"`

	// SecretRef names a Secret in the SiteSync's namespace of type kubernetes.io/dockerconfigjson: its key
	// `.dockerconfigjson` holds the registry's credentials, and an optional `ca.crt` PEM certificates of a
	// private CA that HTTPS connections trust on top of the system's. Empty means anonymous access.
	// +optional
	SecretRef *LocalSecretReference `json:"secretRef,omitempty"`
}

// SiteOCIStatus is where a site's output stands in spec.target.oci's repository.
type SiteOCIStatus struct {
	// RenderedCommit is the rendered commit whose folder the artifact holds (or was to hold, when Message is
	// set).
	// +optional
	RenderedCommit string `json:"renderedCommit,omitempty"`
	// Tag is the artifact's tag for that commit, `<site>-<commit short>`; the artifact is also tagged `<site>`.
	// +optional
	Tag string `json:"tag,omitempty"`
	// Digest is the artifact's manifest digest; empty when publishing failed.
	// +optional
	Digest string `json:"digest,omitempty"`
	// Message says why publishing the artifact failed; empty when it is published.
	// +optional
	Message string `json:"message,omitempty"`
}
