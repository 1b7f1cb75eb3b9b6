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

// Policy names the ValidatingAdmissionPolicies, and their bindings, that every site's rendered objects must
// pass before they are published. siteops evaluates them as the site's kube-apiserver would: a binding with
// the Deny action that refuses an object fails the object's site (reason PolicyDenied, the last good output
// stays); Warn and Audit publish the site and report the finding in an event, the site's status and the
// rendered commit's Siteops-Policy trailer.
type Policy struct {
	// Paths are files or folders of the source repository holding ValidatingAdmissionPolicies,
	// ValidatingAdmissionPolicyBindings and the parameter objects the bindings' paramRefs name.
	// +listType=atomic
	// +kubebuilder:validation:MinItems=1
	// +kubebuilder:validation:MaxItems=64
	// +kubebuilder:validation:items:MinLength=1
	// +kubebuilder:validation:items:MaxLength=255
	// +kubebuilder:validation:items:XValidation:rule="!self.startsWith('/') && !self.split('/').exists(p, p == '..')",message="a policy path must be relative and inside the repository"
	Paths []string `json:"paths"`
}

// SitePolicyStatus is what the admission policies made of a site's rendered objects.
type SitePolicyStatus struct {
	// Summary counts the verdicts of every binding on every object it matched, as "4 passed, 1 warned".
	Summary string `json:"summary"`
	// Digest identifies the policies the site was checked against.
	// +optional
	Digest string `json:"digest,omitempty"`
	// Findings are the verdicts that published the site anyway (warned, audited, or skipped when the labels
	// of an object's namespace are not known), each naming the object, the policy and the binding.
	// +optional
	// +listType=atomic
	Findings []string `json:"findings,omitempty"`
}

// EventPolicyFindings (Warning): a site was published although bindings with the Warn or Audit action found
// objects failing their policy (or skipped objects whose namespace labels are unknown); the message lists them.
const EventPolicyFindings = "PolicyFindings"
