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
)

// Gate is the reconciler of a controller that runs whether or not the manager leads: while the manager holds
// the lease it calls Leader, before that Standby (the same controller over a dry-run WriteRecorder). Its
// informers and work queue are warm when leadership arrives, so the hand-off costs no cache sync.
type Gate struct {
	// Elected is closed when the manager wins the lease (manager.Elected()).
	Elected <-chan struct{}
	Leader  reconcile.Reconciler
	Standby reconcile.Reconciler
}

// Reconcile dispatches to Leader or Standby.
func (g Gate) Reconcile(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
	if Leading(g.Elected) {
		return g.Leader.Reconcile(ctx, req)
	}
	return g.Standby.Reconcile(ctx, req)
}

// Leading reports whether elected is closed.
func Leading(elected <-chan struct{}) bool {
	select {
	case <-elected:
		return true
	default:
		return false
	}
}

// Completer is a controller completer (the Complete field of siteops' reconcilers) that runs the controller
// through a Gate over the reconciler it completes (the leader's) and standby. The controller runs without
// waiting for the lease and re-queues every object of its kind the moment the manager is elected, so the
// leader acts on what the standby only looked at.
func Completer(mgr manager.Manager, standby reconcile.Reconciler) func(*builder.Builder, controller.Options,
	client.ObjectList, reconcile.Reconciler) error {
	return func(b *builder.Builder, opts controller.Options, list client.ObjectList, leader reconcile.Reconciler) error {
		events := make(chan event.GenericEvent)
		if err := mgr.Add(&resyncOnElection{client: mgr.GetClient(), list: list, events: events}); err != nil {
			return fmt.Errorf("adding the election resync: %w", err)
		}
		opts.NeedLeaderElection = ptr.To(false)
		return b.WithOptions(opts).
			WatchesRawSource(source.Channel(events, &handler.EnqueueRequestForObject{})).
			Complete(Gate{Elected: mgr.Elected(), Leader: leader, Standby: standby})
	}
}

// resyncOnElection runs once the manager leads: it lists every object of its kind from the cache and sends
// each into the controller's queue.
type resyncOnElection struct {
	client client.Client
	list   client.ObjectList
	events chan<- event.GenericEvent
}

// NeedLeaderElection makes the manager start it only once elected.
func (r *resyncOnElection) NeedLeaderElection() bool { return true }

// Start lists and enqueues, then waits for the manager to stop.
func (r *resyncOnElection) Start(ctx context.Context) error {
	list := r.list.DeepCopyObject().(client.ObjectList)
	if err := r.client.List(ctx, list); err != nil {
		return fmt.Errorf("listing objects to resync on election: %w", err)
	}
	items, err := meta.ExtractList(list)
	if err != nil {
		return fmt.Errorf("reading the list to resync on election: %w", err)
	}
	ctrl.LoggerFrom(ctx).V(1).Info("elected: re-queueing objects the standby saw", "count", len(items))
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
	<-ctx.Done()
	return nil
}
