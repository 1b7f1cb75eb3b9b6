package sitesync

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	gitopsv1alpha1 "github.com/siteops/siteops/apis/gitops/v1alpha1"
)

// maxMessageLen bounds a site's message in status; kustomize errors can be long.
const maxMessageLen = 1024

// recordResult copies the sync result into status: revisions, the per-site state and the ForeignCommits
// condition. Conditions Ready/Reconciling/Stalled are set by summarize, from the outcome of the whole run.
func (r *Reconciler) recordResult(_ context.Context, run *syncRun) error {
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
			Message:              truncate(run.redact.string(s.Message), maxMessageLen),
			Warnings:             redactAll(run.redact, s.Warnings),
			LastRenderedRevision: s.LastRenderedRevision,
		})
	}
	foreign := metav1.Condition{Type: gitopsv1alpha1.ConditionForeignCommits, Status: metav1.ConditionFalse,
		Reason: gitopsv1alpha1.ReasonNoForeignCommits, Message: "every commit on the target branch is siteops' own"}
	if len(res.ForeignCommits) > 0 {
		foreign.Status = metav1.ConditionTrue
		foreign.Reason = gitopsv1alpha1.ReasonForeignCommitsFound
		foreign.Message = foreignCommitsMessage(res.ForeignCommits)
	}
	r.setCondition(run.obj, foreign)
	return nil
}

// summarize sets observedGeneration, lastSyncTime, lastHandledTrigger and the Ready, Reconciling and Stalled
// conditions from the outcome of the run; err is what Reconcile returns.
func (r *Reconciler) summarize(run *syncRun, err error) {
	obj := run.obj
	obj.Status.ObservedGeneration = obj.Generation
	if obj.Spec.Suspend {
		r.setCondition(obj, condition(gitopsv1alpha1.ConditionReconciling, false, gitopsv1alpha1.ReasonSuspended, "spec.suspend is true"))
		r.setCondition(obj, condition(gitopsv1alpha1.ConditionStalled, false, gitopsv1alpha1.ReasonSuspended, "spec.suspend is true"))
		return
	}
	now := metav1.NewTime(r.Clock.Now())
	obj.Status.LastSyncTime = &now
	obj.Status.LastHandledTrigger = obj.GetAnnotations()[gitopsv1alpha1.RequestedAtAnnotation]

	var stalled *stalledError
	switch {
	case errors.As(err, &stalled):
		msg := run.redact.string(stalled.Error())
		r.setCondition(obj, condition(gitopsv1alpha1.ConditionStalled, true, stalled.reason, msg))
		r.setCondition(obj, condition(gitopsv1alpha1.ConditionReady, false, stalled.reason, msg))
		r.setCondition(obj, condition(gitopsv1alpha1.ConditionReconciling, false, stalled.reason, "waiting for a change to the SiteSync, its Secrets or the repository"))
	case err != nil:
		msg := run.redact.string(err.Error())
		r.setCondition(obj, condition(gitopsv1alpha1.ConditionReady, false, gitopsv1alpha1.ReasonSyncFailed, msg))
		r.setCondition(obj, condition(gitopsv1alpha1.ConditionReconciling, true, gitopsv1alpha1.ReasonProgressing, "retrying after: "+msg))
		r.setCondition(obj, condition(gitopsv1alpha1.ConditionStalled, false, gitopsv1alpha1.ReasonSyncFailed, "the error may be transient"))
	default:
		r.setCondition(obj, readyCondition(obj.Status))
		r.setCondition(obj, condition(gitopsv1alpha1.ConditionReconciling, false, gitopsv1alpha1.ReasonIdle, "sync finished"))
		r.setCondition(obj, condition(gitopsv1alpha1.ConditionStalled, false, gitopsv1alpha1.ReasonIdle, "sync finished"))
	}
}

// readyCondition summarizes the sites of a successful sync.
func readyCondition(st gitopsv1alpha1.SiteSyncStatus) metav1.Condition {
	var failed []string
	for _, s := range st.Sites {
		if !s.Ready {
			failed = append(failed, s.Name)
		}
	}
	switch {
	case len(st.Sites) == 0:
		return condition(gitopsv1alpha1.ConditionReady, false, gitopsv1alpha1.ReasonNoSites, "no site found to render")
	case len(failed) > 0:
		return condition(gitopsv1alpha1.ConditionReady, false, gitopsv1alpha1.ReasonSitesFailed,
			fmt.Sprintf("%d of %d sites failed: %s", len(failed), len(st.Sites), strings.Join(failed, ", ")))
	default:
		return condition(gitopsv1alpha1.ConditionReady, true, gitopsv1alpha1.ReasonSucceeded,
			fmt.Sprintf("%d sites rendered from %s at %s", len(st.Sites), short(st.SourceRevision), short(st.RenderedRevision)))
	}
}

// setCondition sets c with the observed generation and the injected clock; the transition time changes only
// when the status does.
func (r *Reconciler) setCondition(obj *gitopsv1alpha1.SiteSync, c metav1.Condition) {
	c.ObservedGeneration = obj.Generation
	c.LastTransitionTime = metav1.NewTime(r.Clock.Now())
	c.Message = truncate(c.Message, maxMessageLen)
	meta.SetStatusCondition(&obj.Status.Conditions, c)
}

func condition(typ string, status bool, reason, msg string) metav1.Condition {
	s := metav1.ConditionFalse
	if status {
		s = metav1.ConditionTrue
	}
	return metav1.Condition{Type: typ, Status: s, Reason: reason, Message: msg}
}

// foreignCommitsMessage lists foreign commits by short SHA.
func foreignCommitsMessage(shas []string) string {
	shorts := make([]string, len(shas))
	for i, s := range shas {
		shorts[i] = short(s)
	}
	return fmt.Sprintf("%d commits on the target branch were not made by siteops: %s", len(shas), strings.Join(shorts, ", "))
}

// short abbreviates a commit SHA.
func short(sha string) string {
	if len(sha) > 12 {
		return sha[:12]
	}
	return sha
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n-3] + "..."
}

func redactAll(r redactor, in []string) []string {
	if len(in) == 0 {
		return nil
	}
	out := make([]string, len(in))
	for i, s := range in {
		out[i] = r.string(s)
	}
	return out
}
