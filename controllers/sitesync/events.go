package sitesync

import (
	"context"
	"errors"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	gitopsv1alpha1 "github.com/siteops/siteops/apis/gitops/v1alpha1"
	"github.com/siteops/siteops/gitops"
)

// Event reasons of the SiteSync controller; one event per visible action.
const (
	// EventRendered (Normal): a rendered commit was pushed to the target branch.
	EventRendered = "Rendered"
	// EventSiteFailed (Warning): a site failed to render (newly, or again with new inputs).
	EventSiteFailed = "SiteFailed"
	// EventForeignCommit (Warning): the target branch has new commits siteops did not make.
	EventForeignCommit = "ForeignCommit"
	// EventStalled (Warning): the SiteSync stalled on an error retrying cannot fix.
	EventStalled = "Stalled"
	// EventSyncFailed (Warning): a sync failed with an error that is retried.
	EventSyncFailed = "SyncFailed"
)

// Actions of the SiteSync controller's events (events.k8s.io/v1 action field).
const (
	actionPush   = "Push"
	actionRender = "Render"
	actionFetch  = "FetchTarget"
	actionSync   = "Sync"
)

// event records one event about obj, regarding nothing else.
func (r *Reconciler) event(obj runtime.Object, warning bool, reason, action, note string, args ...any) {
	if r.Recorder == nil {
		return
	}
	typ := corev1.EventTypeNormal
	if warning {
		typ = corev1.EventTypeWarning
	}
	r.Recorder.Eventf(obj, nil, typ, reason, action, note, args...)
}

// emitEvents records the visible actions of a successful sync: the pushed commit, each newly failing site and
// newly seen foreign commits. It also counts them in the metrics.
func (r *Reconciler) emitEvents(_ context.Context, run *syncRun) error {
	res := run.result
	pushRetries.Add(float64(res.PushRetries))
	observeRenderDurations(res.Sites)
	if res.Pushed {
		r.event(run.obj, false, EventRendered, actionPush, "pushed %s rendering source %s for sites %s", short(res.RenderedRevision), short(res.SourceRevision),
			strings.Join(renderedSites(res.Sites), ", "))
	}
	if lag, ok := r.lag.observe(client.ObjectKeyFromObject(run.obj), res.SourceRevision, r.seenAt(run), res.Pushed, r.Clock.Now()); ok {
		syncLag.Observe(lag.Seconds())
	}
	before := make(map[string]gitopsv1alpha1.SiteStatus, len(run.before.Sites))
	for _, s := range run.before.Sites {
		before[s.Name] = s
	}
	for _, s := range run.obj.Status.Sites {
		prev, known := before[s.Name]
		if s.Ready || (known && !prev.Ready && prev.InputDigest == s.InputDigest) {
			continue
		}
		renderFailures.WithLabelValues(s.Name, failureReason(s.Message)).Inc()
		r.event(run.obj, true, EventSiteFailed, actionRender, "site %s: %s", s.Name, s.Message)
	}
	if len(res.ForeignCommits) > 0 {
		prev := meta.FindStatusCondition(run.before.Conditions, gitopsv1alpha1.ConditionForeignCommits)
		msg := foreignCommitsMessage(res.ForeignCommits)
		if prev == nil || prev.Status != metav1.ConditionTrue || prev.Message != msg {
			r.event(run.obj, true, EventForeignCommit, actionFetch, "%s", msg)
		}
	}
	return nil
}

// emitFailureEvent records a failed run once per distinct failure: a stall, or a transient sync error.
func (r *Reconciler) emitFailureEvent(run *syncRun, err error) {
	if err == nil {
		return
	}
	msg := run.redact.string(err.Error())
	var stalled *stalledError
	if errors.As(err, &stalled) {
		msg = run.redact.string(stalled.Error()) // without reconcile.TerminalError's prefix, as in the condition
		prev := meta.FindStatusCondition(run.before.Conditions, gitopsv1alpha1.ConditionStalled)
		if prev == nil || prev.Status != metav1.ConditionTrue || prev.Message != msg {
			r.event(run.obj, true, EventStalled, actionSync, "%s", msg)
		}
		return
	}
	prev := meta.FindStatusCondition(run.before.Conditions, gitopsv1alpha1.ConditionReady)
	if prev == nil || prev.Reason != gitopsv1alpha1.ReasonSyncFailed || prev.Message != truncate(msg, maxMessageLen) {
		r.event(run.obj, true, EventSyncFailed, actionSync, "%s", msg)
	}
}

// renderedSites names the sites re-rendered and published in this sync.
func renderedSites(sites []gitops.SiteState) []string {
	var names []string
	for _, s := range sites {
		if s.Rendered && s.Ready {
			names = append(names, s.Name)
		}
	}
	if len(names) == 0 {
		return []string{"(none)"}
	}
	return names
}

// failureReason is a short, bounded label for a site's failure message, for siteops_render_failures_total.
// gitops.SiteState carries no failure category, so it is read from the library's message wording.
func failureReason(msg string) string {
	switch {
	case strings.Contains(msg, "carries plaintext"):
		return "PlaintextSecret"
	case strings.Contains(msg, "kustomize"):
		return "KustomizeError"
	default:
		return "GuardRefused"
	}
}

// seenAt is when the source revision of this run was first known: the push notification time when the run
// handles one, else the start of the run.
func (r *Reconciler) seenAt(run *syncRun) time.Time {
	trigger := run.obj.GetAnnotations()[gitopsv1alpha1.RequestedAtAnnotation]
	if trigger == "" || trigger == run.before.LastHandledTrigger {
		return run.started
	}
	if at, err := time.Parse(time.RFC3339Nano, trigger); err == nil && at.Before(run.started) {
		return at
	}
	return run.started
}
