package shadow

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
// the lease it calls Leader, before that Shadow (the same reconciler over a dry-run Client). Its informers and
// work queue are warm when leadership arrives, so the hand-off costs no cache sync.
type Gate struct {
	// Elected is closed when the manager wins the lease (manager.Elected()).
	Elected <-chan struct{}
	Leader  reconcile.Reconciler
	Shadow  reconcile.Reconciler
}

// Reconcile dispatches to Leader or Shadow.
func (g Gate) Reconcile(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
	if Leading(g.Elected) {
		return g.Leader.Reconcile(ctx, req)
	}
	return g.Shadow.Reconcile(ctx, req)
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

// Build completes b with leader for a manager without shadow mode (shadow nil: the usual leader-only
// controller), or with a Gate over leader and shadow that runs without waiting for the lease and re-queues
// every object of list's kind the moment the manager is elected, so the leader acts on what the shadow only
// looked at.
func Build(mgr manager.Manager, b *builder.TypedBuilder[reconcile.Request], list client.ObjectList, leader, shadow reconcile.Reconciler) error {
	return BuildWithOptions(mgr, b, list, leader, shadow, controller.Options{})
}

// BuildWithOptions is Build with the controller's options (e.g. MaxConcurrentReconciles); with a shadow,
// NeedLeaderElection is set to false over them.
func BuildWithOptions(mgr manager.Manager, b *builder.TypedBuilder[reconcile.Request], list client.ObjectList,
	leader, shadow reconcile.Reconciler, opts controller.Options) error {
	if shadow == nil {
		return b.WithOptions(opts).Complete(leader)
	}
	events := make(chan event.GenericEvent)
	if err := mgr.Add(&resyncOnElection{client: mgr.GetClient(), list: list, events: events}); err != nil {
		return fmt.Errorf("adding the election resync: %w", err)
	}
	opts.NeedLeaderElection = ptr.To(false)
	return b.WithOptions(opts).
		WatchesRawSource(source.Channel(events, &handler.EnqueueRequestForObject{})).
		Complete(Gate{Elected: mgr.Elected(), Leader: leader, Shadow: shadow})
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
	ctrl.LoggerFrom(ctx).V(1).Info("elected: re-queueing objects the shadow saw", "count", len(items))
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
