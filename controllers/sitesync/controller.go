// Package sitesync runs SiteSyncs: on an interval, and at once when the push receiver is told of a push, it
// fetches the source repository, renders every site's kustomize overlay with the gitops library and commits
// the output to the rendered branch Argo CD syncs.
package sitesync

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/events"
	"k8s.io/utils/clock"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	gitopsv1alpha1 "github.com/siteops/siteops/apis/gitops/v1alpha1"
	"github.com/siteops/siteops/gitops"
)

// Reconciler reconciles SiteSync objects.
type Reconciler struct {
	client.Client
	// APIReader reads the credential Secrets straight from the apiserver, so their data never enters the
	// informer cache; nil means mgr.GetAPIReader().
	APIReader client.Reader
	Scheme    *runtime.Scheme
	// Recorder emits one Event per visible action (events.go); nil records nothing.
	Recorder events.EventRecorder
	// Clock stamps status times; nil means the real clock.
	Clock clock.PassiveClock
	// WorkDir caches the clones, one folder per SiteSync; empty means a folder under the OS temp dir.
	WorkDir string

	// sync is gitops.Sync, replaceable in tests.
	sync func(context.Context, gitops.SyncOptions) (gitops.SyncResult, error)
	// random returns a number in [0, 1) for the requeue jitter.
	random func() float64
	// lag remembers when each SiteSync first saw its source revision, for siteops_sync_lag_seconds.
	lag *lagTracker
}

// +kubebuilder:rbac:groups=gitops.siteops.dev,resources=sitesyncs,verbs=get;list;watch;patch
// +kubebuilder:rbac:groups=gitops.siteops.dev,resources=sitesyncs/status,verbs=get;update;patch
// +kubebuilder:rbac:groups="",resources=secrets,verbs=get
// +kubebuilder:rbac:groups=events.k8s.io,resources=events,verbs=create;patch

// SetupWithManager registers the controller: it watches SiteSyncs (spec changes and the requestedAt
// annotation). Secrets are read by name when syncing and never watched: siteops may only get them.
func (r *Reconciler) SetupWithManager(mgr ctrl.Manager) error {
	r.defaults(mgr.GetAPIReader())
	return ctrl.NewControllerManagedBy(mgr).
		For(&gitopsv1alpha1.SiteSync{}, builder.WithPredicates(
			predicate.Or(predicate.GenerationChangedPredicate{}, requestedAtChanged()))).
		Named("sitesync").
		Complete(r)
}

// defaults fills the unexported collaborators that tests may set before.
func (r *Reconciler) defaults(apiReader client.Reader) {
	if r.APIReader == nil {
		r.APIReader = apiReader
	}
	if r.sync == nil {
		r.sync = gitops.Sync
	}
	if r.random == nil {
		r.random = rand.Float64
	}
	if r.lag == nil {
		r.lag = newLagTracker()
	}
	if r.Clock == nil {
		r.Clock = clock.RealClock{}
	}
}

// syncRun carries one reconcile's state from step to step.
type syncRun struct {
	obj *gitopsv1alpha1.SiteSync
	// before is the status as read, to find what changed.
	before gitopsv1alpha1.SiteSyncStatus
	source *gitops.Auth
	target *gitops.Auth
	// signingKey signs the pushed commits and trusted verifies the source commit (trust.go); nil when unset.
	signingKey *gitops.SigningKey
	trusted    *gitops.TrustedKeys
	// redact scrubs the credentials read in this run from anything written out.
	redact  redactor
	started time.Time
	result  gitops.SyncResult
}

// Reconcile syncs one SiteSync: read credentials, sync, record the result, emit events, requeue.
func (r *Reconciler) Reconcile(ctx context.Context, req ctrl.Request) (result ctrl.Result, retErr error) {
	obj := &gitopsv1alpha1.SiteSync{}
	if err := r.Get(ctx, req.NamespacedName, obj); err != nil {
		if apierrors.IsNotFound(err) {
			return ctrl.Result{}, r.forget(req.NamespacedName)
		}
		return ctrl.Result{}, fmt.Errorf("getting SiteSync %s: %w", req.NamespacedName, err)
	}
	run := &syncRun{obj: obj, before: *obj.Status.DeepCopy(), started: r.Clock.Now()}
	patch := client.MergeFrom(obj.DeepCopy())
	defer func() {
		r.emitFailureEvent(run, retErr)
		r.summarize(run, retErr)
		if err := r.Status().Patch(ctx, obj, patch); err != nil && !apierrors.IsNotFound(err) {
			retErr = errors.Join(retErr, fmt.Errorf("patching status of SiteSync %s: %w", req.NamespacedName, err))
			return
		}
		if errors.Is(retErr, reconcile.TerminalError(nil)) {
			// Stalled: the condition and the event say why; no hot retry. It looks again once per interval,
			// which is also how a fixed Secret is noticed: siteops may get Secrets by name, never list or
			// watch them (least privilege). `kubectl annotate` of requestedAt asks for a look at once.
			result, retErr = ctrl.Result{RequeueAfter: jittered(interval(obj), r.random())}, nil
		}
	}()

	if obj.Spec.Suspend {
		return ctrl.Result{}, nil
	}
	steps := []func(context.Context, *syncRun) error{r.readCredentials, r.runSync, r.recordResult, r.emitEvents}
	for _, step := range steps {
		if err := step(ctx, run); err != nil {
			return ctrl.Result{}, run.classify(err)
		}
	}
	return ctrl.Result{RequeueAfter: jittered(interval(obj), r.random())}, nil
}

// forget drops what the controller keeps about a deleted SiteSync: its clone cache and lag bookkeeping.
func (r *Reconciler) forget(key types.NamespacedName) error {
	r.lag.forget(key)
	syncDuration.DeleteLabelValues(key.Namespace, key.Name)
	gitops.ForgetWorkDir(r.workDir(key))
	if err := os.RemoveAll(r.workDir(key)); err != nil {
		return fmt.Errorf("removing clone cache of deleted SiteSync %s: %w", key, err)
	}
	return nil
}

// workDir is the clone cache folder of one SiteSync.
func (r *Reconciler) workDir(key types.NamespacedName) string {
	root := r.WorkDir
	if root == "" {
		root = filepath.Join(os.TempDir(), "siteops-sitesync")
	}
	return filepath.Join(root, key.Namespace, key.Name)
}

// classify turns a step's error into what Reconcile returns: permanent errors stop retries
// (reconcile.TerminalError), transient ones are returned for backoff. Both are scrubbed of credentials.
func (run *syncRun) classify(err error) error {
	err = run.redact.error(err)
	var stalled *stalledError
	if errors.As(err, &stalled) {
		return reconcile.TerminalError(err)
	}
	return err
}

// stalledError is an error only a change to the SiteSync, its Secrets or the repository can fix.
type stalledError struct {
	reason string
	err    error
}

func (e *stalledError) Error() string { return e.err.Error() }
func (e *stalledError) Unwrap() error { return e.err }

// stall marks err as permanent with a condition reason.
func stall(reason string, err error) error { return &stalledError{reason: reason, err: err} }
