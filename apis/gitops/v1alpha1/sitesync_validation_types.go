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

// Validation modes: what an invalid rendered object does to its site.
const (
	// ValidationEnforce fails the site; its last good output stays on the rendered branch.
	ValidationEnforce = "Enforce"
	// ValidationWarn publishes the site and reports each invalid object as a warning.
	ValidationWarn = "Warn"
	// ValidationOff does not check the rendered objects.
	ValidationOff = "Off"
)

// KubernetesVersion is a Kubernetes release, as "1.37" or "v1.37.2".
// +kubebuilder:validation:MaxLength=32
// +kubebuilder:validation:Pattern=`^v?[0-9]+\.[0-9]+(\.[0-9]+)?$`
type KubernetesVersion string

// Validation says what every site's rendered objects are checked against before they are published: the
// OpenAPI schemas of the site's Kubernetes version, and the CRDs of the source repository (in the rendered
// output itself, under base/, and in crds), their CEL rules included.
type Validation struct {
	// Mode is Enforce (an invalid object fails its site and the last good output stays), Warn (the site is
	// published, the problems are warnings) or Off. Empty means Enforce.
	// +optional
	// +kubebuilder:validation:Enum=Enforce;Warn;Off
	Mode string `json:"mode,omitempty"`

	// KubernetesVersion is the release the sites run, as "1.37" or "v1.37.2". Empty means the newest
	// release this siteops carries the schemas of.
	// +optional
	KubernetesVersion KubernetesVersion `json:"kubernetesVersion,omitempty"`

	// SiteKubernetesVersions overrides kubernetesVersion for the sites it names (site name: version).
	// +optional
	// +kubebuilder:validation:MaxProperties=256
	SiteKubernetesVersions map[string]KubernetesVersion `json:"siteKubernetesVersions,omitempty"`

	// CRDs are files or folders of the source repository holding CustomResourceDefinitions, searched
	// besides base/.
	// +optional
	// +listType=atomic
	// +kubebuilder:validation:MaxItems=64
	// +kubebuilder:validation:items:MinLength=1
	// +kubebuilder:validation:items:MaxLength=255
	CRDs []string `json:"crds,omitempty"`
}
