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

package standby

import (
	"context"
	"fmt"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/manager"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
	"sigs.k8s.io/controller-runtime/pkg/source"

	"github.com/siteops/siteops/internal/kit"
)

// Leadership is what a Gate asks of the manager's leader election: whether the manager leads now, news of
// each time it starts leading, and a channel closed when it next does (leadership.Fence).
type Leadership interface {
	Leading() bool
	Subscribe() <-chan struct{}
	Gained() <-chan struct{}
}

// Gate is the reconciler of a controller that runs whether or not the manager leads: it asks Leadership on every
// reconcile and calls Leader while the manager leads, else Standby (the same controller over a dry-run
// WriteRecorder, or Idle). Its informers and work queue are warm when leadership arrives, so the hand-off costs
// no cache sync; leadership may come and go many times while the process runs.
type Gate struct {
	Leadership Leadership
	Leader     reconcile.Reconciler
	Standby    reconcile.Reconciler
	// Pace spaces the Standby reconciles of each object; nil does not.
	Pace *Pacer
}

// Reconcile dispatches to Leader or Standby. A Standby reconcile that comes sooner than Pace allows after the
// object's last reconcile, the leader's included (a manager that just stopped leading does not dry-run at once
// what it has just written, while the new leader starts), is queued again for later. A Standby reconcile still
// running when the manager starts leading is cancelled and ends without error: the object is queued again by
// the resync on election (Completer), so the leader's reconcile does not wait for the standby's dry runs to
// finish.
func (g Gate) Reconcile(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
	gained := g.Leadership.Gained()
	if g.Leadership.Leading() {
		g.Pace.Note(req)
		return g.Leader.Reconcile(ctx, req)
	}
	if d := g.Pace.Wait(req); d > 0 {
		return reconcile.Result{RequeueAfter: d}, nil
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	go func() {
		select {
		case <-gained:
			cancel()
		case <-ctx.Done():
		}
	}()
	res, err := g.Standby.Reconcile(ctx, req)
	select {
	case <-gained:
		ctrl.LoggerFrom(ctx).V(1).Info("started leading: the standby's reconcile gave way")
		return reconcile.Result{}, nil
	default:
		return res, err
	}
}

// Idle is the standby of a controller that only the leader runs (it pushes to Git, or writes status): it does
// nothing. The controller's objects are re-queued when the manager starts leading.
type Idle struct{}

// Reconcile does nothing.
func (Idle) Reconcile(context.Context, reconcile.Request) (reconcile.Result, error) {
	return reconcile.Result{}, nil
}

// Completer returns a kit.Completer (the Complete field of siteops' reconcilers) that runs the controller
// through a Gate over the reconciler it completes (the leader's) and standby, with standby's reconciles of each
// object at least pace apart. The controller runs without waiting for leadership and re-queues every object of
// its kind each time the manager starts leading, so the leader acts on what the standby only looked at.
func Completer(mgr manager.Manager, l Leadership, standby reconcile.Reconciler, pace time.Duration) kit.Completer {
	return func(b *builder.Builder, opts controller.Options, list client.ObjectList, leader reconcile.Reconciler) error {
		events := make(chan event.GenericEvent)
		if err := mgr.Add(&resyncOnElection{client: mgr.GetClient(), list: list, events: events,
			gained: l.Subscribe()}); err != nil {
			return fmt.Errorf("adding the election resync: %w", err)
		}
		opts.NeedLeaderElection = ptr.To(false)
		return b.WithOptions(opts).
			WatchesRawSource(source.Channel(events, &handler.EnqueueRequestForObject{})).
			Complete(Gate{Leadership: l, Leader: leader, Standby: standby, Pace: &Pacer{Interval: pace}})
	}
}

// resyncOnElection lists every object of its kind from the cache each time the manager starts leading and sends
// each into the controller's queue.
type resyncOnElection struct {
	client client.Client
	list   client.ObjectList
	events chan<- event.GenericEvent
	gained <-chan struct{}
}

// NeedLeaderElection is false: it runs on every manager and acts on each gain of leadership.
func (r *resyncOnElection) NeedLeaderElection() bool { return false }

// Start re-queues every object on each gain of leadership until the manager stops.
func (r *resyncOnElection) Start(ctx context.Context) error {
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-r.gained:
		}
		if err := r.resync(ctx); err != nil {
			return err
		}
	}
}

// resync lists and enqueues.
func (r *resyncOnElection) resync(ctx context.Context) error {
	list := r.list.DeepCopyObject().(client.ObjectList)
	if err := r.client.List(ctx, list); err != nil {
		return fmt.Errorf("listing objects to resync on election: %w", err)
	}
	items, err := meta.ExtractList(list)
	if err != nil {
		return fmt.Errorf("reading the list to resync on election: %w", err)
	}
	ctrl.LoggerFrom(ctx).V(1).Info("started leading: re-queueing objects the standby saw", "count", len(items))
	for _, item := range items {
		obj, ok := item.(client.Object)
		if !ok {
			continue
		}
		select {
		case r.events <- event.GenericEvent{Object: obj}:
		case <-ctx.Done():
			return nil
		}
	}
	return nil
}
