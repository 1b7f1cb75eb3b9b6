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

package gitops

import (
	"errors"

	"github.com/siteops/siteops/gitops/guard"
	"github.com/siteops/siteops/gitops/render"
)

// FailureReason says, in one word, why a site failed; metrics and conditions use it as it is.
type FailureReason string

// Why a site can fail. A site that failed keeps its last good output on the target branch.
const (
	// FailureInvalidName: the site's folder name cannot name a site (see ValidateSiteName).
	FailureInvalidName FailureReason = "InvalidSiteName"
	// FailureGuardRefused: the site's kustomization reaches outside the checkout, a remote resource, a
	// plugin, Helm or a symlink out; nothing was built.
	FailureGuardRefused FailureReason = "GuardRefused"
	// FailureKustomize: kustomize could not build the site.
	FailureKustomize FailureReason = "KustomizeError"
	// FailurePlaintextSecret: the site renders a Secret with data; secrets stay out of Git.
	FailurePlaintextSecret FailureReason = "PlaintextSecret"
	// FailureValidation: a rendered object does not fit the schema of the site's Kubernetes version or its
	// CRD (the message names the object, the field and why), or the check could not run.
	FailureValidation FailureReason = "ValidationFailed"
	// FailurePolicyDenied: a ValidatingAdmissionPolicy binding with the Deny action refused a rendered object
	// (the message names the object, the policy, the binding and the policy's message), or the check could
	// not run.
	FailurePolicyDenied FailureReason = "PolicyDenied"
	// FailureNotPublished: the site rendered, but the push of the rendered commit failed.
	FailureNotPublished FailureReason = "NotPublished"
)

// siteFailure is a site's failure with its reason.
type siteFailure struct {
	reason FailureReason
	err    error
}

func (e *siteFailure) Error() string { return e.err.Error() }
func (e *siteFailure) Unwrap() error { return e.err }

// failed marks err as a site failure for reason.
func failed(reason FailureReason, err error) error { return &siteFailure{reason: reason, err: err} }

// failureReason is the reason err carries; a build error without one is kustomize's.
func failureReason(err error) FailureReason {
	var f *siteFailure
	if errors.As(err, &f) {
		return f.reason
	}
	var secret *render.PlaintextSecretError
	if errors.As(err, &secret) {
		return FailurePlaintextSecret
	}
	var g *guard.Refusal
	if errors.As(err, &g) {
		return FailureGuardRefused
	}
	return FailureKustomize
}
