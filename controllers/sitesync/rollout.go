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
	"cmp"
	"context"
	"slices"
	"time"

	rolloutsv1alpha1 "github.com/argoproj/argo-rollouts/pkg/apis/rollouts/v1alpha1"

	gitopsv1alpha1 "github.com/siteops/siteops/apis/gitops/v1alpha1"
	"github.com/siteops/siteops/controllers/sitesync/waves"
	"github.com/siteops/siteops/gitops"
	"github.com/siteops/siteops/internal/kit"
)

// actionDueDelay is how soon a SiteSync looks again when a rollout's publish or revert is due and this
// reconcile did not sync: the next reconcile syncs (rolloutDue) and carries it out.
const actionDueDelay = time.Second

// compileRollout reads spec.waves and spec.freeze; a schedule, time zone or site pattern that cannot be read
// stalls the SiteSync. Without a rollout spec nothing changes: every rendered site is published.
func (r *Reconciler) compileRollout(ctx context.Context, run *scope) error {
	if !waves.Enabled(run.obj.Spec.RolloutSpec) {
		run.obj.Status.Rollout = nil
		return nil
	}
	rollout, err := waves.Compile(run.obj.Spec.RolloutSpec)
	if err != nil {
		return kit.Stall(gitopsv1alpha1.ReasonInvalidRollout, err)
	}
	run.rollout = rollout
	run.actor = r.annotationSetter(ctx, run)
	return r.loadAnalysisRuns(ctx, run)
}

// gate is the sync's gitops.PublishGate for a rollout: it plans on the status as read, the sites the new
// revision changes and the clock, keeps the plan for recordRollout, and tells the sync what to publish and
// revert.
func (r *Reconciler) gate(run *scope) gitops.PublishGate {
	if run.rollout == nil {
		return nil
	}
	return func(in gitops.GateInput) gitops.GateDecision {
		changed := map[string]bool{}
		for _, s := range in.Changed {
			changed[s] = true
		}
		// The status as read has the renders of the last sync, not this one's: no render failure is planned on
		// here, the rollout step plans again on this sync's (dryPlan).
		sites := planSites(run.before.Sites, func(s string) bool { return changed[s] }, false)
		// A changed site the status does not list yet (the first render, a new overlay) is planned too:
		// without it the plan would hold it silently and call the rollout Complete.
		for _, name := range in.Changed {
			if !slices.ContainsFunc(sites, func(s waves.Site) bool { return s.Name == name }) {
				sites = append(sites, waves.Site{Name: name, Changed: true})
			}
		}
		plan := run.rollout.Plan(waves.Input{
			Revision: in.SourceRevision, Sites: sites,
			Previous: run.before.Rollout, Annotations: run.obj.GetAnnotations(), Now: r.Clock.Now(), CanPublish: true,
			Analysis: analysesOf(run.analysisRuns, in.SourceRevision), Actor: run.actor,
		})
		run.plan = &plan
		dec := gitops.GateDecision{Publish: plan.Publish}
		for _, rv := range plan.Revert {
			dec.Restore = append(dec.Restore, gitops.Restore{Site: rv.Site, Commit: rv.Commit, Revision: rv.Revision})
			dec.Trailers = append(dec.Trailers, gitops.Trailer{Key: gitops.TrailerRevertOf, Value: rv.Of})
		}
		if plan.Override != "" && len(plan.Publish) > 0 {
			dec.Trailers = append(dec.Trailers, gitops.Trailer{Key: gitops.TrailerFreezeOverride, Value: plan.Override})
		}
		return dec
	}
}

// reconcileRollout runs after delivery is observed: it records the sync's plan, then plans again on the
// fresh delivery state without publishing (a site turned Degraded halts at once, a soak ends), records that,
// emits the rollout's events and asks to be woken when the plan says, or at once when a publish or revert is
// due (the next reconcile syncs).
func (r *Reconciler) reconcileRollout(ctx context.Context, run *scope) error {
	if run.rollout == nil {
		return nil
	}
	st := &run.obj.Status
	if run.plan != nil {
		st.Rollout = &run.plan.Status
		r.emitRolloutEvents(run, run.plan.Events)
	}
	plan := r.dryPlan(run.rollout, run.obj, run.analysisRuns, run.actor)
	st.Rollout = &plan.Status
	r.emitRolloutEvents(run, plan.Events)
	if plan.ActionDue {
		run.RequeueAfter(actionDueDelay)
	}
	run.RequeueAfter(plan.WakeAfter)
	return r.verifyWave(ctx, run, &plan)
}

// dryPlan plans on obj's status and its AnalysisRuns without publishing: the sites its rollout holds pending
// count as changed. actor names who set an annotation the history records; nil records unknown.
func (r *Reconciler) dryPlan(rollout *waves.Rollout, obj *gitopsv1alpha1.SiteSync,
	runs []rolloutsv1alpha1.AnalysisRun, actor func(string) string) waves.Plan {
	st := obj.Status
	pending := map[string]bool{}
	revision := st.SourceRevision
	if st.Rollout != nil {
		revision = st.Rollout.Revision
		for _, s := range st.Rollout.Sites {
			pending[s.Name] = s.State == gitopsv1alpha1.SitePending
		}
	}
	return rollout.Plan(waves.Input{Revision: revision,
		Sites:    planSites(st.Sites, func(s string) bool { return pending[s] }, true),
		Previous: st.Rollout, Annotations: obj.GetAnnotations(), Now: r.Clock.Now(),
		Analysis: analysesOf(runs, revision), Actor: actor})
}

// rolloutDue reports whether the rollout has a publish or revert due now, so this reconcile syncs. AnalysisRuns
// that cannot be read count as none; the rollout step reads them again and reports the error.
func (r *Reconciler) rolloutDue(ctx context.Context, run *scope) bool {
	obj := run.obj
	if !waves.Enabled(obj.Spec.RolloutSpec) || obj.Status.Rollout == nil {
		return false
	}
	rollout, err := waves.Compile(obj.Spec.RolloutSpec)
	if err != nil || r.loadAnalysisRuns(ctx, run) != nil {
		return false
	}
	plan := r.dryPlan(rollout, obj, run.analysisRuns, nil)
	return plan.ActionDue
}

// planSites maps the sites' status to the planner's input; with renders, a site whose overlay failed to render
// says why (waves.Site.RenderFailed).
func planSites(sites []gitopsv1alpha1.SiteStatus, changed func(string) bool, renders bool) []waves.Site {
	out := make([]waves.Site, 0, len(sites))
	for _, s := range sites {
		ps := waves.Site{Name: s.Name, Changed: changed(s.Name), RenderedCommit: s.RenderedCommit,
			PublishedRevision: s.LastRenderedRevision, Delivery: s.Delivery, Message: s.DeliveryMessage}
		if renders && !s.Ready {
			ps.RenderFailed = cmp.Or(s.Reason, "no reason given")
		}
		if s.Since != nil {
			ps.Since = s.Since.Time
		}
		out = append(out, ps)
	}
	return out
}

// emitRolloutEvents records the plan's events: wave start and finish, halt, revert, freeze, override.
func (r *Reconciler) emitRolloutEvents(run *scope, events []waves.Event) {
	for _, e := range events {
		if e.Warning {
			r.events().Warning(run.obj, e.Reason, "%s", run.redact.String(e.Message))
		} else {
			r.events().Normal(run.obj, e.Reason, "%s", run.redact.String(e.Message))
		}
	}
}
