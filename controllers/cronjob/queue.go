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

package cronjob

import (
	"context"

	"k8s.io/client-go/util/workqueue"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/priorityqueue"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
)

// wakePriority is the work-queue priority of the reconcile that wakes a CronJob at its next scheduled time.
// controller-runtime's priority queue serves higher priorities first and, within one, the longest waiting
// first; watch events add at priority 0 (the initial list at -100). A CronJob that a watch event makes
// ready while it waits for its wake-up keeps wakePriority but queues from when it asked for that wake-up,
// so the reconcile a Job's create event brings comes after the CronJobs that fell due with it.
const wakePriority = 100

// newQueue makes the controller's work queue, controller-runtime's priority queue, and keeps it so a
// reconcile can see whether other CronJobs are waiting for a worker.
func (r *Reconciler) newQueue(name string, rl workqueue.TypedRateLimiter[reconcile.Request],
) workqueue.TypedRateLimitingInterface[reconcile.Request] {
	q := priorityqueue.New(name, func(o *priorityqueue.Opts[reconcile.Request]) {
		o.RateLimiter = rl
		o.Log = ctrl.Log.WithName("cronjob").WithName("queue")
	})
	r.queue.Store(&q)
	return q
}

// othersWaiting reports whether other CronJobs are ready in the work queue, waiting for a worker: then the
// reconcile that started a run leaves its status write to the next one (startedRuns), so the Jobs of every
// CronJob due at once are created first.
func (r *Reconciler) othersWaiting() bool {
	q := r.queue.Load()
	return q != nil && (*q).Len() > 0
}

// specChanges enqueues a CronJob at wakePriority when it is created while the controller runs or its spec
// changes: its next scheduled time is not known until it is reconciled and may already be due, so it
// belongs with the CronJobs due now. At a watch event's priority it would wait behind every wake-up, and on a
// controller that is behind its schedule that is minutes: a CronJob created then would miss its first runs.
// CronJobs of the initial list keep controller-runtime's low priority. notSpecChanges keeps these events
// from the CronJob watch's default handler.
func specChanges() handler.Funcs {
	return handler.Funcs{
		CreateFunc: func(_ context.Context, e event.CreateEvent, q workqueue.TypedRateLimitingInterface[reconcile.Request]) {
			addAtWakePriority(q, e.Object, !e.IsInInitialList)
		},
		UpdateFunc: func(_ context.Context, e event.UpdateEvent, q workqueue.TypedRateLimitingInterface[reconcile.Request]) {
			if specChanged(e) {
				addAtWakePriority(q, e.ObjectNew, true)
			}
		},
	}
}

// notSpecChanges lets through the CronJob events that specChanges does not enqueue.
func notSpecChanges() predicate.Funcs {
	return predicate.Funcs{
		CreateFunc: func(event.CreateEvent) bool { return false },
		UpdateFunc: func(e event.UpdateEvent) bool { return !specChanged(e) },
	}
}

// specChanged reports whether an update changed the CronJob's spec (its generation).
func specChanged(e event.UpdateEvent) bool {
	return e.ObjectOld.GetGeneration() != e.ObjectNew.GetGeneration()
}

// addAtWakePriority adds obj's request to q, at wakePriority when wake is true and q is a priority queue,
// else at the priority q gives by default.
func addAtWakePriority(q workqueue.TypedRateLimitingInterface[reconcile.Request], obj client.Object, wake bool) {
	req := reconcile.Request{NamespacedName: client.ObjectKeyFromObject(obj)}
	if pq, ok := q.(priorityqueue.PriorityQueue[reconcile.Request]); ok && wake {
		pq.AddWithOpts(priorityqueue.AddOpts{Priority: ptr.To(wakePriority)}, req)
		return
	}
	q.Add(req)
}
