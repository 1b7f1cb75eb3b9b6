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
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	gitopsv1alpha1 "github.com/siteops/siteops/apis/gitops/v1alpha1"
	"github.com/siteops/siteops/gitops/source"
	"github.com/siteops/siteops/internal/kit"
)

// maxSiteMessageLen bounds a site's message in status; kustomize errors can be long.
const maxSiteMessageLen = 1024

// recordResult copies the sync result into status: revisions, the per-site state and the ForeignCommits
// condition. Conditions Ready/Reconciling/Stalled are set by summarize, from the outcome of the whole run.
func (r *Reconciler) recordResult(_ context.Context, run *scope) error {
	st := &run.obj.Status
	res := run.result
	st.SourceRevision = res.SourceRevision
	st.RenderedRevision = res.RenderedRevision
	st.Sites = make([]gitopsv1alpha1.SiteStatus, 0, len(res.Sites))
	for _, s := range res.Sites {
		st.Sites = append(st.Sites, gitopsv1alpha1.SiteStatus{
			Name:                 s.Name,
			InputDigest:          s.InputDigest,
			Ready:                s.Ready,
			Reason:               string(s.Reason),
			Message:              kit.Truncate(run.redact.String(s.Message), maxSiteMessageLen),
			Warnings:             redactAll(run.redact, s.Warnings),
			LastRenderedRevision: s.LastRenderedRevision,
			Policy:               sitePolicyStatus(run.redact, s.Policy),
			OCI:                  siteOCIStatus(s.OCI),
			SiteDelivery:         gitopsv1alpha1.SiteDelivery{RenderedCommit: s.RenderedCommit},
		})
	}
	foreign := kit.False(gitopsv1alpha1.ReasonNoForeignCommits, "every commit on the target branch is siteops' own")
	if len(res.ForeignCommits) > 0 {
		foreign = kit.True(gitopsv1alpha1.ReasonForeignCommitsFound, foreignCommitsMessage(res.ForeignCommits))
	}
	r.conditions().Set(run.obj, gitopsv1alpha1.ConditionForeignCommits, *foreign)
	return nil
}

// conditions sets the SiteSync's conditions with the reconciler's clock.
func (r *Reconciler) conditions() kit.Conditions {
	return kit.Conditions{Clock: r.Clock, Reasons: kit.Reasons{
		Idle: gitopsv1alpha1.ReasonIdle, Failed: gitopsv1alpha1.ReasonSyncFailed, Retrying: gitopsv1alpha1.ReasonProgressing,
	}}
}

// summarize sets observedGeneration, lastSyncTime, lastHandledTrigger and the Ready, Reconciling and Stalled
// conditions from the outcome of the run; err is what Reconcile returns, scrubbed of credentials. A site that
// failed to render comes first in Ready, then a revision the rollout holds, then delivery; Reconciling is True
// while the rollout is on its way (progressingVerdict). status.delivered is counted again on the rollout as
// this run left it (deliveredCount).
func (r *Reconciler) summarize(run *scope, err error) {
	obj := run.obj
	obj.Status.ObservedGeneration = obj.Generation
	if obj.Status.Delivered != "" {
		obj.Status.Delivered = deliveredCount(obj.Status)
	}
	if obj.Spec.Suspend {
		r.conditions().Summarize(obj, kit.Outcome{Idle: gitopsv1alpha1.ReasonSuspended})
		return
	}
	if !run.deliveryOnly {
		now := metav1.NewTime(r.Clock.Now())
		obj.Status.LastSyncTime = &now
		obj.Status.LastHandledTrigger = obj.GetAnnotations()[gitopsv1alpha1.RequestedAtAnnotation]
	}
	ready := readyVerdict(obj.Status)
	if held := heldVerdict(obj.Status.Rollout); held != nil && ready.Status == metav1.ConditionTrue {
		ready = held
	} else if ready.Status == metav1.ConditionTrue {
		ready = deliveryVerdict(obj, ready.Message)
	}
	r.conditions().Summarize(obj, kit.Outcome{Err: err, Ready: ready, Progressing: progressingVerdict(obj.Status.Rollout)})
}

// readyVerdict summarizes the render of the sites of a successful sync.
func readyVerdict(st gitopsv1alpha1.SiteSyncStatus) *kit.Verdict {
	var failed []string
	for _, s := range st.Sites {
		if !s.Ready {
			failed = append(failed, fmt.Sprintf("%s (%s)", s.Name, s.Reason))
		}
	}
	switch {
	case len(st.Sites) == 0:
		return kit.False(gitopsv1alpha1.ReasonNoSites, "no site found to render")
	case len(failed) > 0:
		return kit.False(gitopsv1alpha1.ReasonSitesFailed,
			fmt.Sprintf("%d of %d sites failed: %s", len(failed), len(st.Sites), strings.Join(failed, ", ")))
	default:
		return kit.True(gitopsv1alpha1.ReasonSucceeded,
			fmt.Sprintf("%d sites rendered from %s at %s", len(st.Sites), short(st.SourceRevision), short(st.RenderedRevision)))
	}
}

// foreignCommitsMessage lists foreign commits by short SHA.
func foreignCommitsMessage(shas []string) string {
	shorts := make([]string, len(shas))
	for i, s := range shas {
		shorts[i] = short(s)
	}
	return fmt.Sprintf("%d commits on the target branch were not made by siteops: %s", len(shas),
		strings.Join(shorts, ", "))
}

// short abbreviates a commit SHA.
func short(sha string) string {
	if len(sha) > 12 {
		return sha[:12]
	}
	return sha
}

func redactAll(r source.Redactor, in []string) []string {
	if len(in) == 0 {
		return nil
	}
	out := make([]string, len(in))
	for i, s := range in {
		out[i] = r.String(s)
	}
	return out
}
