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

package v1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Alias names what the guestbook app shows next to each entry; it is passed to the app as GUESTBOOK_ALIAS.
// +kubebuilder:validation:Enum=Phone;Address;Name
type Alias string

// The aliases a Guestbook accepts.
const (
	AliasPhone   Alias = "Phone"
	AliasAddress Alias = "Address"
	AliasName    Alias = "Name"
)

// DefaultImage is the web server a Guestbook runs when spec.image is empty: nginx built to run as a non-root
// user, listening on DefaultPort, so the pods pass the restricted Pod Security Standard.
const DefaultImage = "nginxinc/nginx-unprivileged:1.27-alpine"

// DefaultPort is the container port of DefaultImage, used when spec.port is empty.
const DefaultPort int32 = 8080

// GuestbookSpec is the desired state of an active/standby guestbook web app.
type GuestbookSpec struct {
	// size is the number of pods: one active pod serves the <name> Service, the others wait as standbys
	// behind <name>-standby.
	// +required
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=10
	Size int32 `json:"size"`

	// configMapName names the ConfigMap, in the Guestbook's namespace, mounted read-only into every pod at
	// /etc/guestbook. A change of its data rolls the pods. While it is missing the Guestbook is Degraded.
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=15
	// +kubebuilder:validation:Pattern=`^[a-z0-9]([-a-z0-9]*[a-z0-9])?$`
	ConfigMapName string `json:"configMapName"`

	// alias is what the app shows next to each entry: Phone, Address or Name.
	// +optional
	// +kubebuilder:default=Name
	Alias Alias `json:"alias,omitempty"`

	// image is the container image of the web app. It must listen on port.
	// +optional
	// +kubebuilder:default="nginxinc/nginx-unprivileged:1.27-alpine"
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=255
	// +kubebuilder:validation:XValidation:rule="!self.matches('\\\\s')",message="image must not contain whitespace"
	Image string `json:"image,omitempty"`

	// port is the TCP port the app listens on; both Services expose it under the same number. The default,
	// 8080, is the port of the default image.
	// +optional
	// +kubebuilder:default=8080
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=65535
	Port int32 `json:"port,omitempty"`
}

// GuestbookStatus is the observed state of a Guestbook.
type GuestbookStatus struct {
	// active is the name of the pod the <name> Service selects; empty when no pod is Ready.
	// +optional
	Active string `json:"active,omitempty"`

	// standby lists the other pods of the Guestbook, by name, sorted.
	// +optional
	// +listType=set
	Standby []string `json:"standby,omitempty"`

	// readyReplicas is the number of Ready pods.
	// +optional
	ReadyReplicas int32 `json:"readyReplicas,omitempty"`

	// observedGeneration is the metadata.generation the status describes.
	// +optional
	ObservedGeneration int64 `json:"observedGeneration,omitempty"`

	// conditions are Available, Progressing and Degraded; see conditions.go.
	// +optional
	// +listType=map
	// +listMapKey=type
	Conditions []metav1.Condition `json:"conditions,omitempty"`
}

// Guestbook runs `size` pods of a web app configured from a ConfigMap, keeps exactly one Ready pod active
// behind the <name> Service and the rest behind <name>-standby, and promotes a standby at once when the active
// pod stops being Ready or goes away.
// The name becomes a Service name (<name>-standby), so it must be a DNS-1035 label of at most 55 characters.
// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
// +kubebuilder:resource:shortName=gb
// +kubebuilder:printcolumn:name="SIZE",type=integer,JSONPath=`.spec.size`
// +kubebuilder:printcolumn:name="ACTIVE",type=string,JSONPath=`.status.active`
// +kubebuilder:printcolumn:name="READY",type=integer,JSONPath=`.status.readyReplicas`
// +kubebuilder:printcolumn:name="ALIAS",type=string,JSONPath=`.spec.alias`
// +kubebuilder:printcolumn:name="AGE",type=date,JSONPath=`.metadata.creationTimestamp`
// +kubebuilder:validation:XValidation:rule="size(self.metadata.name) <= 55",message="metadata.name must be at most 55 characters: <name>-standby names a Service"
// +kubebuilder:validation:XValidation:rule="self.metadata.name.matches('^[a-z]([-a-z0-9]*[a-z0-9])?$')",message="metadata.name must be a DNS-1035 label (lower case letters, digits, '-', starting with a letter): it names Services"
type Guestbook struct {
	metav1.TypeMeta `json:",inline"`
	// +optional
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// spec is the desired state.
	// +required
	Spec GuestbookSpec `json:"spec"`

	// status is the observed state.
	// +optional
	Status GuestbookStatus `json:"status,omitempty"`
}

// GuestbookList is a list of Guestbooks.
// +kubebuilder:object:root=true
type GuestbookList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []Guestbook `json:"items"`
}
