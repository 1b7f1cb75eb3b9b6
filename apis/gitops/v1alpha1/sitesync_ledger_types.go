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

// HistoryLimit is how many source revisions status.history keeps.
const HistoryLimit = 30

// RevisionRecord is the delivery of one source revision: when it was committed, first published, delivered
// to every site, halted, and when every site was delivered again after the halt.
type RevisionRecord struct {
	// Revision is the source commit SHA.
	Revision string `json:"revision"`
	// CommittedAt is the source commit's committer time.
	// +optional
	CommittedAt *metav1.Time `json:"committedAt,omitempty"`
	// PublishedAt is when the revision's output was first committed to the rendered branch.
	// +optional
	PublishedAt *metav1.Time `json:"publishedAt,omitempty"`
	// DeliveredAt is when every site was Delivered at the revision's output: the latest time one of them became
	// Delivered. Empty while the revision is on its way, and for a halted revision that never was.
	// +optional
	DeliveredAt *metav1.Time `json:"deliveredAt,omitempty"`
	// HaltedAt is when the revision's rollout halted.
	// +optional
	HaltedAt *metav1.Time `json:"haltedAt,omitempty"`
	// FailedSites are the sites that halted the rollout, sorted by name.
	// +optional
	// +listType=set
	// +kubebuilder:validation:MaxItems=64
	FailedSites []string `json:"failedSites,omitempty"`
	// RestoredAt is when every site was Delivered again after the halt, at the reverted output or at a
	// newer revision.
	// +optional
	RestoredAt *metav1.Time `json:"restoredAt,omitempty"`
}
