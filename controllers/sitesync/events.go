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
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	gitopsv1alpha1 "github.com/siteops/siteops/apis/gitops/v1alpha1"
	"github.com/siteops/siteops/internal/kit"
)

// eventAction gives each event reason the action of events.k8s.io/v1 (what the controller did or tried).
func eventAction(reason string) string {
	switch reason {
	case gitopsv1alpha1.EventRendered:
		return "Push"
	case gitopsv1alpha1.EventSiteFailed, gitopsv1alpha1.EventPolicyFindings:
		return "Render"
	case gitopsv1alpha1.EventForeignCommit:
		return "FetchTarget"
	case gitopsv1alpha1.EventStalled, gitopsv1alpha1.EventSyncFailed:
		return "Sync"
	}
	return ""
}

// events records one Event per visible action of the controller; reasons are the constants in
// apis/gitops/v1alpha1/conditions.go.
func (r *Reconciler) events() kit.Events {
	return kit.Events{Recorder: r.Recorder, Action: eventAction}
}

// emitEvents records the visible actions of a successful sync: the pushed commit with the sites whose folders
// it changed, each newly failing site and newly seen foreign commits. It also counts them in the metrics.
func (r *Reconciler) emitEvents(_ context.Context, run *scope) error {
	res := run.result
	r.Metrics.rendered(res.Sites, res.PushRetries)
	if res.Pushed {
		r.events().Normal(run.obj, gitopsv1alpha1.EventRendered, "pushed %s rendering source %s for sites %s",
			short(res.RenderedRevision), short(res.SourceRevision), strings.Join(res.ChangedSites, ", "))
	}
	if lag, ok := r.lag.observe(client.ObjectKeyFromObject(run.obj), res.SourceRevision, r.seenAt(run), res.Pushed,
		res.ChangedSites, r.Clock.Now()); ok {
		r.Metrics.lagged(lag)
	}
	for _, s := range run.obj.Status.Sites {
		prev, known := run.previous(s.Name)
		if s.Ready || (known && !prev.Ready && prev.InputDigest == s.InputDigest) {
			continue
		}
		r.Metrics.siteFailed(s.Name, s.Reason)
		r.events().Warning(run.obj, gitopsv1alpha1.EventSiteFailed, "site %s: %s", s.Name, s.Message)
	}
	r.emitPolicyFindings(run)
	if len(res.ForeignCommits) > 0 {
		prev := meta.FindStatusCondition(run.before.Conditions, gitopsv1alpha1.ConditionForeignCommits)
		msg := foreignCommitsMessage(res.ForeignCommits)
		if prev == nil || prev.Status != metav1.ConditionTrue || prev.Message != msg {
			r.events().Warning(run.obj, gitopsv1alpha1.EventForeignCommit, "%s", msg)
		}
	}
	return nil
}

// emitFailureEvent records a failed run once per distinct failure: a stall, or a transient sync error.
func (r *Reconciler) emitFailureEvent(run *scope, err error) {
	if err == nil {
		return
	}
	msg := err.Error() // scrubbed by Reconcile, as in the condition
	if _, stalled := kit.AsStall(err); stalled {
		prev := meta.FindStatusCondition(run.before.Conditions, gitopsv1alpha1.ConditionStalled)
		if prev == nil || prev.Status != metav1.ConditionTrue || prev.Message != kit.ConditionMessage(msg) {
			r.events().Warning(run.obj, gitopsv1alpha1.EventStalled, "%s", msg)
		}
		return
	}
	prev := meta.FindStatusCondition(run.before.Conditions, gitopsv1alpha1.ConditionReady)
	if prev == nil || prev.Reason != gitopsv1alpha1.ReasonSyncFailed || prev.Message != kit.ConditionMessage(msg) {
		r.events().Warning(run.obj, gitopsv1alpha1.EventSyncFailed, "%s", msg)
	}
}

// seenAt is when the source revision of this run was first known: the push notification time when the run
// handles one, else the start of the run.
func (r *Reconciler) seenAt(run *scope) time.Time {
	trigger := run.obj.GetAnnotations()[gitopsv1alpha1.RequestedAtAnnotation]
	if trigger == "" || trigger == run.before.LastHandledTrigger {
		return run.started
	}
	if at, err := time.Parse(time.RFC3339Nano, trigger); err == nil && at.Before(run.started) {
		return at
	}
	return run.started
}
