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

	rolloutsv1alpha1 "github.com/argoproj/argo-rollouts/pkg/apis/rollouts/v1alpha1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/events"
	"k8s.io/utils/clock"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/predicate"

	gitopsv1alpha1 "github.com/siteops/siteops/apis/gitops/v1alpha1"
	"github.com/siteops/siteops/controllers/sitesync/waves"
	"github.com/siteops/siteops/gitops"
	"github.com/siteops/siteops/gitops/publish"
	"github.com/siteops/siteops/gitops/source"
	"github.com/siteops/siteops/internal/kit"
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
	// Complete says how the manager runs the controller (see kit.Completer); nil runs it while leading.
	Complete kit.Completer
	// Metrics records the controller's measurements; nil records nothing.
	Metrics *Metrics
	// Ledger keeps the rendered commits the delivery ledger reports (ledger.go); nil reads none.
	Ledger *Ledger

	// syncer renders and publishes the sites and owns the clone caches' locks and memos; made at setup.
	syncer *gitops.Syncer
	// sync is syncer.Sync, replaceable in tests.
	sync func(context.Context, gitops.SyncOptions) (gitops.SyncResult, error)
	// random returns a number in [0, 1) for the requeue jitter.
	random func() float64
	// lag remembers when each SiteSync first saw its source revision, for siteops_sync_lag_seconds.
	lag *lagTracker
	// writes holds the status writes the cache has not shown yet.
	writes kit.OwnWrites
	// deliveryObserved is set at setup when the cluster serves Argo CD's Application kind; applications then
	// reads them (the manager's cache, fed by the watch).
	deliveryObserved bool
	applications     client.Reader
	// refreshed remembers which Applications were asked to refresh for which rendered head; appSetAsks, when
	// the ApplicationSets were asked to run their generators.
	refreshed  *refreshTracker
	appSetAsks *appSetAskTracker
	// analysisObserved is set at setup when the cluster serves Argo Rollouts' AnalysisRun kind (analysis.go).
	analysisObserved bool
}

// +kubebuilder:rbac:groups=gitops.siteops.dev,resources=sitesyncs,verbs=get;list;watch;patch
// +kubebuilder:rbac:groups=gitops.siteops.dev,resources=sitesyncs/status,verbs=get;update;patch
// +kubebuilder:rbac:groups="",resources=secrets,verbs=get
// +kubebuilder:rbac:groups=events.k8s.io,resources=events,verbs=create;patch
// +kubebuilder:rbac:groups=argoproj.io,resources=applications,verbs=get;list;watch;patch
// +kubebuilder:rbac:groups=argoproj.io,resources=applicationsets,verbs=list;patch

// SetupWithManager registers the controller: it watches SiteSyncs (spec changes, the requestedAt
// annotation, and the rollout's freeze-override and approval annotations) and, where Argo CD's Application
// kind is served, the sites' Applications, so a change of sync status or health is reported at once. Secrets are read
// by name when syncing and never watched: siteops may only get them.
func (r *Reconciler) SetupWithManager(mgr ctrl.Manager) error {
	r.defaults(mgr.GetAPIReader())
	b := ctrl.NewControllerManagedBy(mgr).
		For(&gitopsv1alpha1.SiteSync{}, builder.WithPredicates(
			predicate.Or(predicate.GenerationChangedPredicate{}, requestedAtChanged(), rolloutAnnotationsChanged()))).
		Named("sitesync")
	served, err := applicationsServed(mgr.GetRESTMapper())
	if err != nil {
		return err
	}
	r.deliveryObserved = served
	if served {
		if r.applications == nil {
			r.applications = mgr.GetCache()
		}
		b = b.Watches(newApplication(), handler.EnqueueRequestsFromMapFunc(r.siteSyncsOf),
			builder.WithPredicates(deliveryChanged()))
	} else {
		mgr.GetLogger().WithName("sitesync").Info("Argo CD's Application kind is not served: " +
			"site delivery is not observed; restart the manager after installing Argo CD")
	}
	if b, err = r.watchAnalysisRuns(b, mgr.GetRESTMapper()); err != nil {
		return err
	}
	return kit.Complete(r.Complete, b, controller.Options{}, &gitopsv1alpha1.SiteSyncList{}, r)
}

// defaults fills the unexported collaborators that tests may set before.
func (r *Reconciler) defaults(apiReader client.Reader) {
	if r.APIReader == nil {
		r.APIReader = apiReader
	}
	if r.syncer == nil {
		r.syncer = gitops.NewSyncer(gitops.SyncerOptions{})
	}
	if r.sync == nil {
		r.sync = r.syncer.Sync
	}
	if r.random == nil {
		r.random = rand.Float64
	}
	if r.lag == nil {
		r.lag = newLagTracker()
	}
	if r.appSetAsks == nil {
		r.appSetAsks = newAppSetAskTracker()
	}
	if r.refreshed == nil {
		r.refreshed = newRefreshTracker()
	}
	if r.Clock == nil {
		r.Clock = clock.RealClock{}
	}
}

// scope carries one reconcile's state from step to step.
type scope struct {
	kit.Flow
	obj *gitopsv1alpha1.SiteSync
	// base is the SiteSync the status patch is computed against: as read, or as stored (freshStatus).
	base *gitopsv1alpha1.SiteSync
	// before is the status as read, to find what changed.
	before gitopsv1alpha1.SiteSyncStatus
	// beforeSites indexes before.Sites by name (see previous).
	beforeSites map[string]gitopsv1alpha1.SiteStatus
	source      *gitops.Auth
	target      *gitops.Auth
	// signingKey signs the pushed commits and trusted verifies the source commit (trust.go); nil when unset.
	signingKey *publish.SigningKey
	trusted    *source.TrustedKeys
	// oci holds the registry credentials of spec.target.oci (oci.go); nil when unset or anonymous.
	oci *gitops.OCIAuth
	// redact scrubs the credentials read in this run from anything written out.
	redact  source.Redactor
	started time.Time
	result  gitops.SyncResult
	// deliveryOnly is set when no sync is due: the run only observes the sites' Applications.
	deliveryOnly bool
	// apps are the sites' Applications, by site, as observeDelivery read them.
	apps map[string]appView
	// rollout is the compiled spec.waves/spec.freeze (nil without them) and plan the sync's plan (rollout.go).
	rollout *waves.Rollout
	plan    *waves.Plan
	// analysisRuns are the SiteSync's AnalysisRuns, read once (analysis.go); nil until read.
	analysisRuns []rolloutsv1alpha1.AnalysisRun
	// actor names who set a rollout annotation, for status.rollout.history (history_actor.go).
	actor func(annotation string) string
}

// ownWritePoll is how soon a reconcile that read a SiteSync older than its own last status write looks again.
const ownWritePoll = 50 * time.Millisecond

// Reconcile syncs one SiteSync: read credentials, sync (when due), record the result, emit events, observe
// the sites' Argo CD Applications, ask them to refresh after a push, keep the delivery history and the
// ledger's rendered commits, requeue.
func (r *Reconciler) Reconcile(ctx context.Context, req ctrl.Request) (result ctrl.Result, retErr error) {
	obj := &gitopsv1alpha1.SiteSync{}
	if err := r.Get(ctx, req.NamespacedName, obj); err != nil {
		if apierrors.IsNotFound(err) {
			return ctrl.Result{}, r.forget(req.NamespacedName)
		}
		return ctrl.Result{}, fmt.Errorf("getting SiteSync %s: %w", req.NamespacedName, err)
	}
	// The status is computed from the status read (each site's since, the rollout's history): a read from a
	// cache that does not show this controller's last status write yet would undo that write. A status write
	// brings no event (the predicates pass spec and annotation changes), so look again shortly: the cache
	// shows the write within milliseconds. The cache lags in real time, whatever r.Clock says.
	if wait, behind := r.writes.Behind(req.NamespacedName, obj.ResourceVersion, time.Now()); behind {
		return ctrl.Result{RequeueAfter: min(wait, ownWritePoll)}, nil
	}
	run := &scope{obj: obj, base: obj.DeepCopy(), before: *obj.Status.DeepCopy(), started: r.Clock.Now()}
	defer func() { result, retErr = r.finish(ctx, run, result, retErr) }()

	if obj.Spec.Suspend {
		return ctrl.Result{}, nil
	}
	steps := []kit.Step[*scope]{{Name: "credentials", Run: r.readCredentials},
		{Name: "oci-credentials", Run: r.readOCICredentials}, {Name: "rollout-spec", Run: r.compileRollout}}
	due, wait := syncDue(obj, r.Clock.Now())
	if due || r.rolloutDue(ctx, run) {
		run.RequeueAfter(jittered(interval(obj), r.random()))
		steps = append([]kit.Step[*scope]{{Name: "fresh-status", Run: r.freshStatus}}, steps...)
		steps = append(steps,
			kit.Step[*scope]{Name: "sync", Run: r.runSync},
			kit.Step[*scope]{Name: "record", Run: r.recordResult},
			kit.Step[*scope]{Name: "events", Run: r.emitEvents})
	} else {
		run.deliveryOnly = true
		run.RequeueAfter(wait)
	}
	return kit.RunSteps(ctx, run, append(steps,
		kit.Step[*scope]{Name: "delivery", Run: r.observeDelivery},
		kit.Step[*scope]{Name: "refresh", Run: r.refreshApplications},
		kit.Step[*scope]{Name: "refresh-applicationsets", Run: r.refreshApplicationSets},
		kit.Step[*scope]{Name: "delivery-events", Run: r.emitDeliveryEvents},
		kit.Step[*scope]{Name: "rollout", Run: r.reconcileRollout},
		kit.Step[*scope]{Name: "history", Run: r.recordHistory},
		kit.Step[*scope]{Name: "ledger", Run: r.readLedger},
		kit.Step[*scope]{Name: "oci", Run: r.checkOCI},
	))
}

// previous is the site's status as the reconcile read it; the index is built once per reconcile.
func (run *scope) previous(site string) (gitopsv1alpha1.SiteStatus, bool) {
	if run.beforeSites == nil {
		run.beforeSites = make(map[string]gitopsv1alpha1.SiteStatus, len(run.before.Sites))
		for _, s := range run.before.Sites {
			run.beforeSites[s.Name] = s
		}
	}
	s, ok := run.beforeSites[site]
	return s, ok
}

// finish scrubs the reconcile's error, records it as an event and in the conditions, and patches the status
// once. A stall is not retried hot: the condition and the event say why, and the SiteSync is looked at again
// once per interval, which is also how a fixed Secret is noticed (siteops may get Secrets by name, never
// list or watch them). `kubectl annotate` of requestedAt asks for a look at once.
func (r *Reconciler) finish(ctx context.Context, run *scope, result ctrl.Result, err error) (ctrl.Result, error) {
	err = run.redact.Error(err)
	r.emitFailureEvent(run, err)
	r.summarize(run, err)
	patchErr := kit.PatchStatus(ctx, r.Client, run.base, run.obj)
	if patchErr == nil && run.obj.ResourceVersion != run.base.ResourceVersion {
		r.writes.Wrote(client.ObjectKeyFromObject(run.obj), run.obj.ResourceVersion, time.Now())
	}
	if _, stalled := kit.AsStall(err); stalled && patchErr == nil {
		return ctrl.Result{RequeueAfter: jittered(interval(run.obj), r.random())}, nil
	}
	return kit.Finish(result, errors.Join(err, patchErr))
}

// forget drops what the controller keeps about a deleted SiteSync: its clone cache (and what the syncer
// remembers about it) and lag bookkeeping.
func (r *Reconciler) forget(key types.NamespacedName) error {
	r.lag.forget(key)
	r.writes.Forget(key)
	r.refreshed.forget(key)
	r.appSetAsks.forget(key)
	r.Metrics.forget(key)
	r.Ledger.forget(key)
	remove := os.RemoveAll
	if r.syncer != nil {
		remove = r.syncer.RemoveWorkDir
	}
	if err := remove(r.workDir(key)); err != nil {
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
