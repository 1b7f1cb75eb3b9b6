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

// Package cronjob is the controller of batch.tutorial.kubebuilder.io/v1 CronJob: it starts a Job at each
// scheduled time with the behaviour of Kubernetes' own CronJob controller (time zones, deterministic Job
// names, the most recent of many missed times, startingDeadlineSeconds, concurrency policies, history limits).
package cronjob

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/robfig/cron/v3"
	kbatchv1 "k8s.io/api/batch/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/events"
	"k8s.io/utils/clock"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/controller/priorityqueue"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	batchv1 "github.com/siteops/siteops/apis/batch/v1"
	"github.com/siteops/siteops/internal/kit"
)

// +kubebuilder:rbac:groups=batch.tutorial.kubebuilder.io,resources=cronjobs,verbs=get;list;watch
// +kubebuilder:rbac:groups=batch.tutorial.kubebuilder.io,resources=cronjobs/status,verbs=get;update;patch
// +kubebuilder:rbac:groups=batch.tutorial.kubebuilder.io,resources=cronjobs/finalizers,verbs=update
// +kubebuilder:rbac:groups=batch,resources=jobs,verbs=get;list;watch;create;update;patch;delete
// +kubebuilder:rbac:groups=batch,resources=jobs/status,verbs=get
// +kubebuilder:rbac:groups=events.k8s.io,resources=events,verbs=create;patch

// requeueMargin is added to the wait for the next scheduled time so the reconcile lands just after it. The
// work queue's timers never fire early, so the margin only has to absorb a wall clock stepped back a little;
// a reconcile that still lands before the time finds nothing due and asks again for the few milliseconds
// left. Every millisecond of it is lag on every run.
const requeueMargin = 10 * time.Millisecond

// Reconciler reconciles a CronJob object.
type Reconciler struct {
	client.Client
	Scheme *runtime.Scheme
	// Recorder emits one Event per visible action; nil records nothing.
	Recorder events.EventRecorder
	// Clock drives every schedule decision; tests give a fake one. Nil means the real clock.
	Clock clock.PassiveClock
	// Observer receives the schedule measurements (the manager gives the leader a *Metrics); nil measures nothing.
	Observer Observer
	// Complete says how the manager runs the controller (see kit.Completer); nil runs it while leading.
	Complete kit.Completer
	// Workers is how many CronJobs are reconciled at once (different CronJobs; one CronJob is never
	// reconciled twice at the same time); 0 means DefaultWorkers.
	Workers int

	// writes holds the status writes the cache has not shown yet.
	writes kit.OwnWrites
	// runs holds the runs started whose status is left to the next reconcile.
	runs startedRuns
	// queue is the controller's work queue once it runs (SetupWithManager); nil when Reconcile is called
	// on its own.
	queue atomic.Pointer[priorityqueue.PriorityQueue[reconcile.Request]]
}

// DefaultWorkers is the default number of CronJobs reconciled at once. Every `*/1` CronJob falls due in the
// same second; with one worker each waits for the API requests (list from cache, create, event, status) of
// all before it, which put the schedule lag at a minute for 200 CronJobs on a loaded machine. Kubernetes'
// CronJob controller runs 5 (--concurrent-cron-job-syncs); siteops has no client-side rate limit
// (controller-runtime leaves it to API Priority and Fairness), so more workers turn into less lag.
const DefaultWorkers = 20

// scope is what the steps of one reconcile share.
type scope struct {
	kit.Flow
	key types.NamespacedName
	cj  *batchv1.CronJob
	now time.Time
	// started is the Job this reconcile created, if it created one.
	started *kbatchv1.Job
	// announce names the Job started while other CronJobs waited in the queue: its SuccessfulCreate event
	// goes with the status write that records it (startedRuns).
	announce string
	// wasActive holds the names in status.active before this reconcile, to notice Jobs that finished.
	wasActive map[string]bool
	jobs      jobSets
	sched     cron.Schedule
	plan      plan
}

// Reconcile runs the steps in order: list and classify the owned Jobs (and update status from them), prune
// history, honour suspend, plan the schedule, apply the concurrency policy, and start the due Job. The
// status is patched once, at the end, whatever happened.
func (r *Reconciler) Reconcile(ctx context.Context, req ctrl.Request) (res ctrl.Result, retErr error) {
	cj := &batchv1.CronJob{}
	if err := r.Get(ctx, req.NamespacedName, cj); err != nil {
		if apierrors.IsNotFound(err) {
			r.writes.Forget(req.NamespacedName)
			r.runs.forget(req.NamespacedName)
		}
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	if !cj.DeletionTimestamp.IsZero() {
		// Owned Jobs go with the CronJob through their owner references; nothing else to clean up.
		return ctrl.Result{}, nil
	}
	now := r.clock().Now()
	if wait, behind := r.writes.Behind(req.NamespacedName, cj.ResourceVersion, now); behind {
		// The cache does not show this controller's last status write yet; the update event of that write
		// reconciles the CronJob again, with what it wrote.
		return ctrl.Result{RequeueAfter: wait}, nil
	}
	s := &scope{key: req.NamespacedName, cj: cj, now: now, wasActive: activeNames(cj)}
	before := cj.DeepCopy()
	defer func() {
		r.summarize(s, retErr)
		if retErr == nil && s.announce != "" && r.runs.leaveStatus(s.key, before, cj, s.started, s.plan.Run) {
			return // the Job's create event brings the reconcile that writes this status and announces the Job
		}
		if s.announce != "" {
			r.announceCreated(cj, s.announce)
		}
		patchErr := kit.PatchStatus(ctx, r.Client, before, cj)
		if patchErr == nil {
			for _, job := range r.runs.written(s.key, cj) {
				r.announceCreated(cj, job)
			}
			if cj.ResourceVersion != before.ResourceVersion {
				r.writes.Wrote(s.key, cj.ResourceVersion, r.clock().Now())
			}
		}
		res, retErr = kit.Finish(res, errors.Join(r.events().Terminal(cj, before.Status.Conditions, retErr), patchErr))
	}()

	res, retErr = kit.RunSteps(ctx, s, []kit.Step[*scope]{
		{Name: "child jobs", Run: r.reconcileChildJobs},
		{Name: "history", Run: r.reconcileHistory},
		{Name: "suspend", Run: r.reconcileSuspend},
		{Name: "schedule", Run: r.reconcileSchedule},
		{Name: "concurrency", Run: r.reconcileConcurrency},
		{Name: "run", Run: r.reconcileRun},
	})
	if res.RequeueAfter > 0 { // the wake-up at the next scheduled time (or the next catch-up run)
		res.Priority = ptr.To(wakePriority)
	}
	return res, retErr
}

// reconcileSuspend stops before scheduling when spec.suspend is true; running Jobs are left alone and no
// requeue is asked for (un-suspending is a spec change, which wakes the controller).
func (r *Reconciler) reconcileSuspend(_ context.Context, s *scope) error {
	if s.cj.Spec.Suspend != nil && *s.cj.Spec.Suspend {
		s.Stop()
	}
	return nil
}

func (r *Reconciler) clock() clock.PassiveClock {
	if r.Clock == nil {
		return clock.RealClock{}
	}
	return r.Clock
}

// jobOwnerKey indexes Jobs by the name of the CronJob that controls them.
const jobOwnerKey = ".metadata.controller"

// SetupWithManager registers the Job owner index and the controller, which watches CronJobs and the Jobs
// they own.
func (r *Reconciler) SetupWithManager(mgr ctrl.Manager) error {
	if err := mgr.GetFieldIndexer().IndexField(context.Background(), &kbatchv1.Job{}, jobOwnerKey,
		jobOwnerIndex); err != nil {
		return fmt.Errorf("indexing Jobs by their CronJob: %w", err)
	}
	b := ctrl.NewControllerManagedBy(mgr).
		For(&batchv1.CronJob{}, builder.WithPredicates(notSpecChanges())).
		Watches(&batchv1.CronJob{}, specChanges()).
		Owns(&kbatchv1.Job{}, builder.WithPredicates(jobChangeMatters())).
		Named("cronjob")
	workers := r.Workers
	if workers <= 0 {
		workers = DefaultWorkers
	}
	opts := controller.Options{MaxConcurrentReconciles: workers, NewQueue: r.newQueue}
	if err := kit.Complete(r.Complete, b, opts, &batchv1.CronJobList{}, r); err != nil {
		return fmt.Errorf("setting up the CronJob controller: %w", err)
	}
	return nil
}

// jobOwnerIndex is the index function of jobOwnerKey.
func jobOwnerIndex(obj client.Object) []string {
	owner := metav1.GetControllerOf(obj)
	if owner == nil || owner.APIVersion != batchv1.GroupVersion.String() || owner.Kind != "CronJob" {
		return nil
	}
	return []string{owner.Name}
}
