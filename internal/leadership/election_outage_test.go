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
	"errors"
	"testing"

	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	clocktesting "k8s.io/utils/clock/testing"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// TestLeaderThatCannotRenewStopsBeforeTheLeaseExpires cuts the leader off the apiserver: its renewals fail, it
// stops leading once the renew deadline has passed on its clock (its fenced client then refuses writes), and
// the standby of the same colour takes the Lease only once it expired, after the leader stopped. Without an
// active Service, both contend always.
func TestLeaderThatCannotRenewStopsBeforeTheLeaseExpires(t *testing.T) {
	g := NewWithT(t)
	ns := newNamespace(t, "lost-renewals")
	clk, l := clocktesting.NewFakeClock(t0), newLedger()
	proxy, cut := newCutProxy(t)
	leader := startContender(t, "leader", contenderOpts{ns: ns, timing: short, clock: clk, ledger: l, config: cut})
	g.Eventually(leader.fence.Leading, eventually).Should(BeTrue())
	standby := startContender(t, "standby", contenderOpts{ns: ns, timing: short, clock: clk, ledger: l})
	// The standby has read the Lease held by the leader when it waits for its expiry on its clock.
	g.Eventually(clk.Waiters, eventually).Should(BeNumerically(">=", 2))

	proxy.Cut()
	// Just past the leader's renew deadline (t0 + 10 s), before the Lease expires (t0 + 15 s). Setting the same
	// time again fires the timers the electors set meanwhile.
	g.Eventually(func() bool {
		clk.SetTime(t0.Add(short.renew))
		return leader.fence.Leading()
	}, eventually).Should(BeFalse())
	g.Expect(standby.fence.Leading()).To(BeFalse(), "the Lease has not expired on the standby's clock")
	err := NewClient(k8s, leader.fence).Create(context.Background(),
		&corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "late"}})
	g.Expect(errors.Is(err, ErrNotLeading)).To(BeTrue(), "a leader past its renew deadline writes nothing: %v", err)
	g.Expect(apierrors.IsNotFound(k8s.Get(context.Background(), client.ObjectKey{Namespace: ns, Name: "late"},
		&corev1.ConfigMap{}))).To(BeTrue())

	g.Eventually(func() bool {
		clk.SetTime(t0.Add(short.lease))
		return standby.fence.Leading()
	}, eventually).Should(BeTrue())
	g.Expect(l.Events()).To(Equal([]string{"leader started", "leader stopped", "standby started"}))
	g.Expect(l.Overlaps()).To(BeEmpty())

	// Back in reach, the old leader sees the Lease held and stays a standby.
	proxy.Restore(t)
	g.Eventually(func(g Gomega) string { return holder(g, ns) }, eventually).Should(Equal("standby"))
	g.Expect(leader.fence.Leading()).To(BeFalse())
}

// TestContenderLeadsOnceTheApiserverIsBack starts the only contender while the apiserver is unreachable: it
// keeps trying, does not lead and does not fail; once the apiserver is back its watch connects and it takes the
// Lease, without its fake clock moving.
func TestContenderLeadsOnceTheApiserverIsBack(t *testing.T) {
	g := NewWithT(t)
	ns := newNamespace(t, "apiserver-down")
	activeService(t, ns, "active", "blue")
	clk, l := clocktesting.NewFakeClock(t0), newLedger()
	proxy, cut := newCutProxy(t)
	proxy.Cut()
	c := startContender(t, "blue", contenderOpts{ns: ns, activeService: "active", hash: "blue", timing: never, clock: clk,
		ledger: l, config: cut})
	// The elector tried to reach the apiserver and was turned away, more than once: it keeps trying.
	g.Eventually(proxy.TurnedAway, eventually).Should(BeNumerically(">=", 2))
	g.Expect(c.fence.Leading()).To(BeFalse())
	select {
	case <-c.done:
		t.Fatalf("the elector returned while the apiserver was down: %v", c.err)
	default:
	}

	proxy.Restore(t)
	g.Eventually(c.fence.Leading, eventually).Should(BeTrue())
	g.Expect(holder(g, ns)).To(Equal("blue"))
	g.Expect(clk.Now()).To(Equal(t0))
}
