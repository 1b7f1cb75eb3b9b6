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

// TestOnlyTheActiveColourLeads runs two contenders, one per colour: the one the active Service selects leads,
// the preview does not, not even once the active colour's only manager is gone and the Lease is free; a new
// manager of the active colour then takes it.
func TestOnlyTheActiveColourLeads(t *testing.T) {
	g := NewWithT(t)
	ns := newNamespace(t, "only-active")
	activeService(t, ns, "active", "blue")
	clk, l := clocktesting.NewFakeClock(t0), newLedger()
	opts := func(hash string) contenderOpts {
		return contenderOpts{ns: ns, activeService: "active", hash: hash, timing: never, clock: clk, ledger: l}
	}
	green := startContender(t, "green", opts("green"))
	blue := startContender(t, "blue", opts("blue"))
	g.Eventually(blue.fence.Leading, eventually).Should(BeTrue())
	g.Expect(holder(g, ns)).To(Equal("blue"))

	// The active colour's manager stops (release on cancel): the Lease is free, and the preview leaves it.
	blue.Stop()
	g.Eventually(func(g Gomega) string { return holder(g, ns) }, eventually).Should(BeEmpty())
	blue2 := startContender(t, "blue-2", opts("blue"))
	g.Eventually(blue2.fence.Leading, eventually).Should(BeTrue())

	g.Expect(green.fence.Leading()).To(BeFalse())
	g.Expect(l.Events()).To(Equal([]string{"blue started", "blue stopped", "blue-2 started"}), "the preview never led")
	g.Expect(l.Overlaps()).To(BeEmpty())
}

// TestPromoteMovesLeadershipOnTheWatch runs three contenders (two managers of the blue colour, one of green)
// whose fake clocks never move, so no renewal, expiry or retry can happen: only the watch of the Service and
// the Lease can move leadership. Promote moves the active selector to green: the blue leader stops, and its
// fenced client refuses a write, before green starts; undo moves it back, and a blue manager leads again. At
// no moment do two lead.
func TestPromoteMovesLeadershipOnTheWatch(t *testing.T) {
	g := NewWithT(t)
	ns := newNamespace(t, "promote")
	activeService(t, ns, "active", "blue")
	clk, l := clocktesting.NewFakeClock(t0), newLedger()
	opts := func(hash string) contenderOpts {
		return contenderOpts{ns: ns, activeService: "active", hash: hash, timing: never, clock: clk, ledger: l}
	}
	blues := []*contender{startContender(t, "blue-a", opts("blue")), startContender(t, "blue-b", opts("blue"))}
	green := startContender(t, "green", opts("green"))
	g.Eventually(func() int { return leaders(blues...) }, eventually).Should(Equal(1))
	first := blues[0]
	if !first.fence.Leading() {
		first = blues[1]
	}
	fenced := NewClient(k8s, first.fence)

	promote(t, ns, "active", "green")
	g.Eventually(green.fence.Leading, eventually).Should(BeTrue())
	g.Expect(leaders(blues...)).To(Equal(0))
	err := fenced.Create(context.Background(),
		&corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "late-write"}})
	g.Expect(errors.Is(err, ErrNotLeading)).To(BeTrue(), "the old leader's write is refused: %v", err)
	g.Expect(apierrors.IsNotFound(k8s.Get(context.Background(), client.ObjectKey{Namespace: ns, Name: "late-write"},
		&corev1.ConfigMap{}))).
		To(BeTrue(), "the refused write never reached the apiserver")

	promote(t, ns, "active", "blue") // undo
	g.Eventually(func() int { return leaders(blues...) }, eventually).Should(Equal(1))
	g.Expect(green.fence.Leading()).To(BeFalse())

	g.Expect(l.Events()).To(HaveLen(5))
	g.Expect(l.Events()[1:4]).To(Equal([]string{first.name + " stopped", "green started", "green stopped"}),
		"each leader stops before the next starts")
	g.Expect(l.Overlaps()).To(BeEmpty())
	g.Expect(clk.Now()).To(Equal(t0), "no timer could have moved leadership")
}

// TestLeadershipIsGainedLostAndGainedAgain runs two contenders and switches the active selector back and forth:
// the same process leads, stops and leads again, each gain announced to subscribers.
func TestLeadershipIsGainedLostAndGainedAgain(t *testing.T) {
	g := NewWithT(t)
	ns := newNamespace(t, "gain-again")
	activeService(t, ns, "active", "blue")
	clk, l := clocktesting.NewFakeClock(t0), newLedger()
	opts := func(hash string) contenderOpts {
		return contenderOpts{ns: ns, activeService: "active", hash: hash, timing: never, clock: clk, ledger: l}
	}
	blue := startContender(t, "blue", opts("blue"))
	gains := blue.fence.Subscribe()
	green := startContender(t, "green", opts("green"))
	g.Eventually(blue.fence.Leading, eventually).Should(BeTrue())
	for i, hash := range []string{"green", "blue", "green", "blue"} {
		promote(t, ns, "active", hash)
		leader, other := green, blue
		if hash == "blue" {
			leader, other = blue, green
		}
		g.Eventually(leader.fence.Leading, eventually).Should(BeTrue(), "switch %d", i)
		g.Expect(other.fence.Leading()).To(BeFalse())
	}
	g.Expect(l.Events()).To(Equal([]string{"blue started", "blue stopped", "green started", "green stopped",
		"blue started",
		"blue stopped", "green started", "green stopped", "blue started"}))
	g.Expect(l.Overlaps()).To(BeEmpty())
	g.Expect(gains).To(Receive(), "the last gain is announced")
}

// leaders counts the contenders that lead.
func leaders(cs ...*contender) int {
	n := 0
	for _, c := range cs {
		if c.fence.Leading() {
			n++
		}
	}
	return n
}
