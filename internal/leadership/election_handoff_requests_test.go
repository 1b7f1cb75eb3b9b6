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
	"net/http"
	"strings"
	"sync"
	"testing"

	. "github.com/onsi/gomega"
	coordinationv1 "k8s.io/api/coordination/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"
	clocktesting "k8s.io/utils/clock/testing"
	"k8s.io/utils/ptr"
)

// requestLog counts one contender's requests of Leases and Services, but for lists and watches, by method and
// resource.
type requestLog struct {
	mu     sync.Mutex
	counts map[string]int
}

// config returns env's config with every request counted.
func (r *requestLog) config() *rest.Config {
	cfg := rest.CopyConfig(env.Config)
	cfg.Wrap(func(rt http.RoundTripper) http.RoundTripper {
		return roundTripFunc(func(req *http.Request) (*http.Response, error) {
			r.count(req)
			return rt.RoundTrip(req)
		})
	})
	return cfg
}

// count adds req unless it lists or watches: a read, create, update or delete of a Lease or Service.
func (r *requestLog) count(req *http.Request) {
	parts := strings.Split(strings.Trim(req.URL.Path, "/"), "/")
	var resource string
	for i, p := range parts {
		if p != "leases" && p != "services" {
			continue
		}
		if req.Method == http.MethodGet && i == len(parts)-1 {
			return // a list or a watch
		}
		resource = p
	}
	if resource == "" {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.counts == nil {
		r.counts = map[string]int{}
	}
	r.counts[req.Method+" "+resource]++
}

// Take returns the counts so far and starts again from zero.
func (r *requestLog) Take() map[string]int {
	r.mu.Lock()
	defer r.mu.Unlock()
	c := r.counts
	r.counts = nil
	if c == nil {
		c = map[string]int{}
	}
	return c
}

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(req *http.Request) (*http.Response, error) { return f(req) }

// colourPair is blue leading and green, its successor-to-be, watching, each in the pod "manager-<colour>" and
// with its requests counted.
type colourPair struct {
	blue, green       *contender
	blueLog, greenLog *requestLog
	clock             *clocktesting.FakeClock
	ledger            *ledger
}

// startColourPair starts blue as the active colour of Service "active" in ns, waits for it to lead and to have
// created the Lease (its only request worth counting at start: it may read the Lease its watch does not have
// yet, once or again), then starts green and waits until green has decided on blue's Lease.
func startColourPair(t *testing.T, ns string, tm timing3) colourPair {
	t.Helper()
	return startColourPairWith(t, ns, tm, false)
}

// startColourPairWith is startColourPair with the contenders watching the Rollouts of ns when rollouts is set.
func startColourPairWith(t *testing.T, ns string, tm timing3, rollouts bool) colourPair {
	t.Helper()
	g := NewWithT(t)
	activeService(t, ns, "active", "blue")
	p := colourPair{blueLog: &requestLog{}, greenLog: &requestLog{}, clock: clocktesting.NewFakeClock(t0),
		ledger: newLedger()}
	opts := func(hash string, r *requestLog) contenderOpts {
		return contenderOpts{ns: ns, activeService: "active", hash: hash, pod: "manager-" + hash, timing: tm, clock: p.clock,
			ledger: p.ledger, config: r.config(), rollouts: rollouts}
	}
	p.blue = startContender(t, "blue", opts("blue", p.blueLog))
	g.Eventually(p.blue.fence.Leading, eventually).Should(BeTrue())
	p.green = startContender(t, "green", opts("green", p.greenLog))
	g.Expect(p.blueLog.Take()).To(HaveKeyWithValue("POST leases", 1), "blue created the Lease")
	g.Eventually(func() bool { return p.ledger.Decided("green") }, eventually).Should(BeTrue(), "green saw blue's Lease")
	return p
}

// TestHandOffIsOneLeaseWriteAndNoRead promotes with two contenders, each in a Ready pod of its colour, whose
// clocks move only when the test steps them: the old leader hands the Lease to the new colour's pod, one Lease
// update, and the new colour leads on what its watch shows, with no request of its own; neither reads the Lease
// or the Service, so a promote waits for no extra round trip. At its first renewal the new leader writes the
// Lease in its own identity.
func TestHandOffIsOneLeaseWriteAndNoRead(t *testing.T) {
	g := NewWithT(t)
	ns := newNamespace(t, "handoff-requests")
	colourPod(t, ns, "manager-blue", "blue", true)
	colourPod(t, ns, "manager-green", "green", true)
	p := startColourPair(t, ns, short)

	promote(t, ns, "active", "green")
	g.Eventually(p.green.fence.Leading, eventually).Should(BeTrue())
	g.Expect(holder(g, ns)).To(Equal("manager-green"), "handed to green's pod")
	g.Expect(p.blueLog.Take()).To(Equal(map[string]int{"PUT leases": 1}), "blue: the hand-over only")
	g.Expect(p.greenLog.Take()).To(BeEmpty(), "green: no request before it leads")
	g.Expect(p.ledger.Events()).To(Equal([]string{"blue started", "blue stopped", "green started"}))
	g.Expect(p.ledger.Overlaps()).To(BeEmpty())

	p.clock.Step(short.retry)
	g.Eventually(func() string { return holder(g, ns) }, eventually).Should(Equal("green"), "green's first renewal")
	g.Expect(p.greenLog.Take()).To(Equal(map[string]int{"PUT leases": 1}))
	g.Expect(p.green.fence.Leading()).To(BeTrue())
	g.Expect(p.ledger.Events()).To(HaveLen(3))
}

// TestHandOffWithoutAReadyPodOfTheNewColourReleasesTheLease promotes when the new colour has no Ready pod the
// old leader knows of (its pod reports NotReady, or no pod carries the hash): the old leader releases the Lease,
// one update, and the new colour's manager takes it, one update, as soon as its watch shows it released.
func TestHandOffWithoutAReadyPodOfTheNewColourReleasesTheLease(t *testing.T) {
	g := NewWithT(t)
	ns := newNamespace(t, "handoff-release")
	colourPod(t, ns, "manager-green", "green", false)
	p := startColourPair(t, ns, never)

	promote(t, ns, "active", "green")
	g.Eventually(p.green.fence.Leading, eventually).Should(BeTrue())
	g.Eventually(func() string { return holder(g, ns) }, eventually).Should(Equal("green"))
	g.Expect(p.blueLog.Take()).To(Equal(map[string]int{"PUT leases": 1}), "blue: the release only")
	g.Expect(p.greenLog.Take()).To(Equal(map[string]int{"PUT leases": 1}), "green: the take-over only")
	g.Expect(p.ledger.Events()).To(Equal([]string{"blue started", "blue stopped", "green started"}))
	g.Expect(p.ledger.Overlaps()).To(BeEmpty())
}

// TestLeaseLeftInThePodsNameIsTakenWithAWrite starts a manager whose pod the Lease already names, as when the
// process the Lease was handed to is gone and its container restarted: it did not see the hand-over, so it takes
// the Lease with an update of its own before it leads, as any manager takes a Lease still in its name.
func TestLeaseLeftInThePodsNameIsTakenWithAWrite(t *testing.T) {
	g := NewWithT(t)
	ns := newNamespace(t, "handoff-restart")
	activeService(t, ns, "active", "green")
	lease := &coordinationv1.Lease{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: leaseName},
		Spec: coordinationv1.LeaseSpec{HolderIdentity: ptr.To("manager-green"), LeaseDurationSeconds: ptr.To[int32](15),
			RenewTime: &metav1.MicroTime{Time: t0}}}
	g.Expect(k8s.Create(context.Background(), lease)).To(Succeed())
	greenLog := &requestLog{}
	green := startContender(t, "green", contenderOpts{ns: ns, activeService: "active", hash: "green", pod: "manager-green",
		timing: never, clock: clocktesting.NewFakeClock(t0), ledger: newLedger(), config: greenLog.config()})
	g.Eventually(green.fence.Leading, eventually).Should(BeTrue())
	g.Expect(holder(g, ns)).To(Equal("green"))
	g.Expect(greenLog.Take()).To(HaveKeyWithValue("PUT leases", 1))
}
