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
	"net/http"
	"strings"
	"sync"
	"testing"

	. "github.com/onsi/gomega"
	"k8s.io/client-go/rest"
	clocktesting "k8s.io/utils/clock/testing"
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

// TestHandOffSendsOneLeaseWriteEachAndReadsNothing promotes with two contenders whose clocks never move: the
// hand-off is the old leader's release and the new one's take-over, one Lease update each, decided on what the
// watches delivered without a read of the Lease or the Service, so a promote waits for no extra round trip.
func TestHandOffSendsOneLeaseWriteEachAndReadsNothing(t *testing.T) {
	g := NewWithT(t)
	ns := newNamespace(t, "handoff-requests")
	activeService(t, ns, "active", "blue")
	clk, l := clocktesting.NewFakeClock(t0), newLedger()
	blueLog, greenLog := &requestLog{}, &requestLog{}
	opts := func(hash string, r *requestLog) contenderOpts {
		return contenderOpts{ns: ns, activeService: "active", hash: hash, timing: never, clock: clk, ledger: l, config: r.config()}
	}
	blue := startContender(t, "blue", opts("blue", blueLog))
	g.Eventually(blue.fence.Leading, eventually).Should(BeTrue())
	green := startContender(t, "green", opts("green", greenLog))
	// At start blue reads the Lease its watch does not have yet (once, or again when a wake-up comes before the
	// watch shows the Lease it created), and creates it.
	g.Expect(blueLog.Take()).To(HaveKeyWithValue("POST leases", 1), "blue created the Lease")

	promote(t, ns, "active", "green")
	g.Eventually(green.fence.Leading, eventually).Should(BeTrue())
	g.Eventually(func() string { return holder(g, ns) }, eventually).Should(Equal("green"))

	g.Expect(blueLog.Take()).To(Equal(map[string]int{"PUT leases": 1}), "blue: the release only")
	g.Expect(greenLog.Take()).To(Equal(map[string]int{"PUT leases": 1}), "green: the take-over only")
	g.Expect(l.Events()).To(Equal([]string{"blue started", "blue stopped", "green started"}))
	g.Expect(l.Overlaps()).To(BeEmpty())
}
