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
	"errors"
	"testing"

	. "github.com/onsi/gomega"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/siteops/siteops/internal/leadership"
)

// blockingReconciler stands for a standby reconcile whose dry runs are still on their way: it returns only when
// its context ends, with that context's error.
type blockingReconciler struct{ started chan struct{} }

func (b blockingReconciler) Reconcile(ctx context.Context, _ reconcile.Request) (reconcile.Result, error) {
	close(b.started)
	<-ctx.Done()
	return reconcile.Result{}, ctx.Err()
}

// leaderReconciler counts the leader's reconciles.
type leaderReconciler struct{ calls int }

func (l *leaderReconciler) Reconcile(context.Context, reconcile.Request) (reconcile.Result, error) {
	l.calls++
	return reconcile.Result{}, nil
}

var gbRequest = reconcile.Request{NamespacedName: types.NamespacedName{Namespace: "ns", Name: "gb"}}

func TestStandbyReconcileGivesWayWhenTheManagerStartsLeading(t *testing.T) {
	g := NewWithT(t)
	fence := &leadership.Fence{}
	standby := blockingReconciler{started: make(chan struct{})}
	leader := &leaderReconciler{}
	gate := Gate{Leadership: fence, Leader: leader, Standby: standby}

	type result struct {
		res reconcile.Result
		err error
	}
	done := make(chan result, 1)
	go func() {
		res, err := gate.Reconcile(context.Background(), gbRequest)
		done <- result{res, err}
	}()
	<-standby.started
	g.Consistently(done).ShouldNot(Receive(), "the standby reconcile runs while the manager does not lead")

	fence.Grant()
	var r result
	g.Eventually(done).Should(Receive(&r), "the standby reconcile ends once the manager leads")
	g.Expect(r.err).NotTo(HaveOccurred(), "giving way is no error: the election resync queues the object again")
	g.Expect(r.res).To(Equal(reconcile.Result{}))

	_, err := gate.Reconcile(context.Background(), gbRequest)
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(leader.calls).To(Equal(1), "the next reconcile is the leader's")
}

func TestStandbyReconcileErrorIsKeptWhileTheManagerDoesNotLead(t *testing.T) {
	g := NewWithT(t)
	fence := &leadership.Fence{}
	standby := blockingReconciler{started: make(chan struct{})}
	gate := Gate{Leadership: fence, Leader: &leaderReconciler{}, Standby: standby}

	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		_, err := gate.Reconcile(ctx, gbRequest)
		done <- err
	}()
	<-standby.started
	cancel() // the manager stops: no leadership gained
	var err error
	g.Eventually(done).Should(Receive(&err))
	g.Expect(errors.Is(err, context.Canceled)).To(BeTrue(),
		"a standby reconcile that fails for another reason says so: %v", err)
}
