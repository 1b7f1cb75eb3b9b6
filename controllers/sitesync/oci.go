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

package sitesync

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"

	gitopsv1alpha1 "github.com/siteops/siteops/apis/gitops/v1alpha1"
	"github.com/siteops/siteops/gitops"
	"github.com/siteops/siteops/gitops/source"
	"github.com/siteops/siteops/internal/kit"
)

// readOCICredentials reads the Secret of spec.target.oci: the Docker config in `.dockerconfigjson` and an
// optional private CA in `ca.crt`. A missing Secret or key stalls the SiteSync; messages never quote a value.
func (r *Reconciler) readOCICredentials(ctx context.Context, run *scope) error {
	oci := run.obj.Spec.Target.OCI
	if oci == nil || oci.SecretRef == nil {
		return nil
	}
	data, err := r.secretData(ctx, run.obj.Namespace, oci.SecretRef.Name)
	if err != nil {
		return err
	}
	if len(data[corev1.DockerConfigJsonKey]) == 0 {
		return kit.Stall(gitopsv1alpha1.ReasonSecretInvalid, fmt.Errorf("registry secret %q: missing key %q",
			oci.SecretRef.Name, corev1.DockerConfigJsonKey))
	}
	run.oci = &gitops.OCIAuth{DockerConfigJSON: data[corev1.DockerConfigJsonKey]}
	if ca := data[secretKeyCA]; len(ca) > 0 {
		if err := source.ValidateCABundle(ca); err != nil {
			return kit.Stall(gitopsv1alpha1.ReasonSecretInvalid,
				fmt.Errorf("registry secret %q, key %q: %w", oci.SecretRef.Name, secretKeyCA, err))
		}
		run.oci.CABundle = ca
	}
	return nil
}

// ociTarget is spec.target.oci for gitops.Sync, nil when it is not set.
func ociTarget(run *scope) *gitops.OCITarget {
	oci := run.obj.Spec.Target.OCI
	if oci == nil {
		return nil
	}
	return &gitops.OCITarget{Repository: oci.Repository, Auth: run.oci}
}

// checkOCI turns the sites' OCI failures of this run's sync into the run's outcome, once the Git output is
// recorded and every other step ran: a registry that refused the artifacts stalls (no hot retry), one that
// could not be reached is retried with backoff.
func (r *Reconciler) checkOCI(_ context.Context, run *scope) error {
	err := run.result.OCIError
	if err == nil {
		return nil
	}
	if gitops.IsPermanent(err) {
		return kit.Stall(gitopsv1alpha1.ReasonOCIPublishFailed, err)
	}
	return err
}

// siteOCIStatus is a site's OCI state for status.
func siteOCIStatus(s *gitops.OCIState) *gitopsv1alpha1.SiteOCIStatus {
	if s == nil {
		return nil
	}
	return &gitopsv1alpha1.SiteOCIStatus{RenderedCommit: s.Commit, Tag: s.Tag, Digest: s.Digest,
		Message: kit.Truncate(s.Message, maxSiteMessageLen)}
}

// previousOCI is a site's OCI state from status.
func previousOCI(s *gitopsv1alpha1.SiteOCIStatus) *gitops.OCIState {
	if s == nil {
		return nil
	}
	return &gitops.OCIState{Commit: s.RenderedCommit, Tag: s.Tag, Digest: s.Digest, Message: s.Message}
}
