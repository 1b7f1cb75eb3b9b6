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

package leadership

import (
	"context"

	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/cache"
)

// watch starts a watch of the Lease and, with an active Service, of that Service, each limited to the one
// object by name, and of the pods of each colour (watchColours). Every change of the Lease or the Service wakes
// the elector, which then decides on what the watch delivered: a promote (the active selector moves), a
// hand-over, a release or a takeover is acted on as soon as the apiserver tells, not at the next retry period,
// and without reading either object again first.
func (e *Elector) watch(ctx context.Context) {
	e.leaseInformer = e.inform(ctx, e.cfg.Client.CoordinationV1().RESTClient(), "leases", e.cfg.Name,
		&coordinationv1.Lease{})
	if e.cfg.ActiveService != "" {
		e.serviceInformer = e.inform(ctx, e.cfg.Client.CoreV1().RESTClient(), "services", e.cfg.ActiveService,
			&corev1.Service{})
		e.watchColours(ctx)
		e.watchRollouts(ctx)
	}
}

// inform runs an informer of the one object name of resource in the elector's namespace (with name "", of
// every object of resource there) until ctx ends; each event wakes the elector.
func (e *Elector) inform(ctx context.Context, rc rest.Interface, resource, name string,
	obj runtime.Object) cache.SharedIndexInformer {
	lw := cache.NewFilteredListWatchFromClient(rc, resource, e.cfg.Namespace, func(o *metav1.ListOptions) {
		if name != "" {
			o.FieldSelector = fields.OneTermEqualSelector("metadata.name", name).String()
		}
	})
	inf := cache.NewSharedIndexInformer(lw, obj, 0, cache.Indexers{})
	wake := func(any) { e.nudge() }
	_, _ = inf.AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    wake,
		UpdateFunc: func(any, any) { e.nudge() },
		DeleteFunc: wake,
	})
	go inf.RunWithContext(ctx)
	return inf
}

// watched is the object name as inf's store holds it, nil when it does not exist. Start waits for inf to sync
// before the elector decides anything.
func (e *Elector) watched(inf cache.SharedIndexInformer, name string) any {
	obj, exists, err := inf.GetStore().GetByKey(e.cfg.Namespace + "/" + name)
	if err != nil || !exists {
		return nil
	}
	return obj
}

// nudge wakes the elector's loop; wake-ups that come while it is busy are folded into one.
func (e *Elector) nudge() {
	select {
	case e.wake <- struct{}{}:
	default:
	}
}
