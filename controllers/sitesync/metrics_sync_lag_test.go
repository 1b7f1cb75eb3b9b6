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
	_, ok := l.observe(key, shaA, t0, false, t0.Add(time.Second))
	g.Expect(ok).To(BeFalse())
	// A later sync of the same revision pushes: lag counts from the first sighting.
	lag, ok := l.observe(key, shaA, t0.Add(time.Minute), true, t0.Add(90*time.Second))
	g.Expect(ok).To(BeTrue())
	g.Expect(lag).To(Equal(90 * time.Second))
	// Already pushed: not observed twice.
	_, ok = l.observe(key, shaA, t0.Add(2*time.Minute), true, t0.Add(3*time.Minute))
	g.Expect(ok).To(BeFalse())
	// A new revision starts over.
	lag, ok = l.observe(key, shaB, t0.Add(10*time.Minute), true, t0.Add(10*time.Minute+3*time.Second))
	g.Expect(ok).To(BeTrue())
	g.Expect(lag).To(Equal(3 * time.Second))
	// Unknown revision (sync failed before fetching) is ignored.
	_, ok = l.observe(key, "", t0, true, t0)
	g.Expect(ok).To(BeFalse())

	l.forget(key)
	g.Expect(l.seen).To(BeEmpty())
}
