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
	"testing"
	"time"

	. "github.com/onsi/gomega"
	"k8s.io/apimachinery/pkg/types"
	clocktesting "k8s.io/utils/clock/testing"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/siteops/siteops/internal/leadership"
)

// TestPacerPutsOffAStandbyReconcileToTheEndOfItsInterval: the first reconcile of an object runs at once, the
// next ones within the interval wait for its end, another object is not held back, and once the interval is
// over a reconcile runs at once again.
func TestPacerPutsOffAStandbyReconcileToTheEndOfItsInterval(t *testing.T) {
	g := NewWithT(t)
	clk := clocktesting.NewFakePassiveClock(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	p := &Pacer{Interval: time.Second, Clock: clk}
	other := reconcile.Request{NamespacedName: types.NamespacedName{Namespace: "ns", Name: "other"}}

	g.Expect(p.Wait(gbRequest)).To(BeZero())
	clk.SetTime(clk.Now().Add(300 * time.Millisecond))
	g.Expect(p.Wait(gbRequest)).To(Equal(700 * time.Millisecond))
	g.Expect(p.Wait(other)).To(BeZero())
	clk.SetTime(clk.Now().Add(700 * time.Millisecond))
	g.Expect(p.Wait(gbRequest)).To(BeZero())
	g.Expect(p.Wait(gbRequest)).To(Equal(time.Second))

	var none *Pacer
	g.Expect(none.Wait(gbRequest)).To(BeZero(), "no pacer, no pacing")
	g.Expect((&Pacer{}).Wait(gbRequest)).To(BeZero(), "interval 0, no pacing")
}

// TestPacerForgetsObjectsWhoseIntervalIsOver reconciles many objects once each: the pacer keeps only those
// whose interval still runs.
func TestPacerForgetsObjectsWhoseIntervalIsOver(t *testing.T) {
	g := NewWithT(t)
	clk := clocktesting.NewFakePassiveClock(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	p := &Pacer{Interval: time.Second, Clock: clk}
	for i := range 5000 {
		clk.SetTime(clk.Now().Add(time.Millisecond))
		g.Expect(p.Wait(reconcile.Request{NamespacedName: types.NamespacedName{Namespace: "ns",
			Name: fmt.Sprintf("gb-%d", i)}})).To(BeZero())
	}
	g.Expect(len(p.last)).To(BeNumerically("<=", 2*1000+1024), "about the last second's objects, not all 5,000")
}

// countingReconciler counts its reconciles.
type countingReconciler struct{ calls int }

func (c *countingReconciler) Reconcile(context.Context, reconcile.Request) (reconcile.Result, error) {
	c.calls++
	return reconcile.Result{}, nil
}

// TestGatePacesTheStandbyOnly: while the manager does not lead, a second reconcile within the interval does not
// reach the standby and is queued again for the interval's end; once the manager leads, every reconcile reaches
// the leader at once; once it has stopped leading, the standby's first reconcile waits an interval from the
// leader's last.
func TestGatePacesTheStandbyOnly(t *testing.T) {
	g := NewWithT(t)
	clk := clocktesting.NewFakePassiveClock(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	fence := &leadership.Fence{}
	leader, standby := &countingReconciler{}, &countingReconciler{}
	gate := Gate{Leadership: fence, Leader: leader, Standby: standby, Pace: &Pacer{Interval: time.Second, Clock: clk}}
	ctx := context.Background()

	res, err := gate.Reconcile(ctx, gbRequest)
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(res).To(Equal(reconcile.Result{}))
	res, err = gate.Reconcile(ctx, gbRequest)
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(res).To(Equal(reconcile.Result{RequeueAfter: time.Second}))
	g.Expect(standby.calls).To(Equal(1))

	fence.Grant()
	for range 3 {
		res, err = gate.Reconcile(ctx, gbRequest)
		g.Expect(err).NotTo(HaveOccurred())
		g.Expect(res).To(Equal(reconcile.Result{}))
	}
	g.Expect(leader.calls).To(Equal(3))

	// Leadership lost: the standby's first reconcile waits an interval from the leader's last.
	clk.SetTime(clk.Now().Add(2 * time.Second))
	_, err = gate.Reconcile(ctx, gbRequest)
	g.Expect(err).NotTo(HaveOccurred())
	fence.Revoke()
	clk.SetTime(clk.Now().Add(400 * time.Millisecond))
	res, err = gate.Reconcile(ctx, gbRequest)
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(res).To(Equal(reconcile.Result{RequeueAfter: 600 * time.Millisecond}))
	g.Expect(standby.calls).To(Equal(1))
}
