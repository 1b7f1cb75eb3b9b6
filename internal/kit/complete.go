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

package kit

import (
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
)

// Completer finishes a controller: it completes b (watches already set) with opts, running r. list names the
// controller's kind, for a completer that re-queues every object at some moment. The manager's wiring passes
// one to run a controller in standby mode too; a controller never knows which it was given.
type Completer func(b *builder.Builder, opts controller.Options, list client.ObjectList, r reconcile.Reconciler) error

// Complete finishes b with c, or, when c is nil, as a plain controller that runs r only while the manager
// leads.
func Complete(c Completer, b *builder.Builder, opts controller.Options, list client.ObjectList,
	r reconcile.Reconciler) error {
	if c == nil {
		return b.WithOptions(opts).Complete(r)
	}
	return c(b, opts, list, r)
}
