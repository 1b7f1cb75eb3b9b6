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

package sitesync

import (
	"testing"
	"time"

	. "github.com/onsi/gomega"
	"k8s.io/apimachinery/pkg/types"
)

func TestLagTrackerObservesEachRevisionOnce(t *testing.T) {
	g := NewWithT(t)
	l := newLagTracker()
	key := types.NamespacedName{Namespace: "n", Name: "s"}
	t0 := epoch

	// First seen without a push (e.g. a site failed): no lag yet.
	_, ok := l.observe(key, shaA, t0, false, nil, t0.Add(time.Second))
	g.Expect(ok).To(BeFalse())
	// A later sync of the same revision pushes: lag counts from the first sighting.
	lag, ok := l.observe(key, shaA, t0.Add(time.Minute), true, nil, t0.Add(90*time.Second))
	g.Expect(ok).To(BeTrue())
	g.Expect(lag).To(Equal(90 * time.Second))
	// Already pushed: not observed twice.
	_, ok = l.observe(key, shaA, t0.Add(2*time.Minute), true, nil, t0.Add(3*time.Minute))
	g.Expect(ok).To(BeFalse())
	// A new revision starts over.
	lag, ok = l.observe(key, shaB, t0.Add(10*time.Minute), true, nil, t0.Add(10*time.Minute+3*time.Second))
	g.Expect(ok).To(BeTrue())
	g.Expect(lag).To(Equal(3 * time.Second))
	// Unknown revision (sync failed before fetching) is ignored.
	_, ok = l.observe(key, "", t0, true, nil, t0)
	g.Expect(ok).To(BeFalse())

	l.forget(key)
	g.Expect(l.seen).To(BeEmpty())
}

// TestConvergenceIsObservedOncePerRevisionAndChangedSite: a site whose folder the push changed converges once,
// timed from the revision's first sighting; a site the push did not change, a second delivery and an older
// revision are not observed.
func TestConvergenceIsObservedOncePerRevisionAndChangedSite(t *testing.T) {
	g := NewWithT(t)
	l := newLagTracker()
	key := types.NamespacedName{Namespace: "n", Name: "s"}
	_, ok := l.observe(key, shaA, epoch, true, []string{"dev"}, epoch.Add(time.Second))
	g.Expect(ok).To(BeTrue())

	_, ok = l.converged(key, "prod", shaA, epoch.Add(5*time.Second))
	g.Expect(ok).To(BeFalse(), "prod's folder was not changed by the push")
	_, ok = l.converged(key, "dev", shaB, epoch.Add(5*time.Second))
	g.Expect(ok).To(BeFalse(), "dev rendered from another revision")
	d, ok := l.converged(key, "dev", shaA, epoch.Add(5*time.Second))
	g.Expect(ok).To(BeTrue())
	g.Expect(d).To(Equal(5 * time.Second))
	_, ok = l.converged(key, "dev", shaA, epoch.Add(9*time.Second))
	g.Expect(ok).To(BeFalse(), "observed once")
}
