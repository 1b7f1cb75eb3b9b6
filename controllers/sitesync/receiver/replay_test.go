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

package receiver

import (
	"fmt"
	"testing"

	. "github.com/onsi/gomega"
)

func TestDeliveryCacheRejectsReplays(t *testing.T) {
	g := NewWithT(t)
	c := newDeliveryCache(3)
	g.Expect(c.reserve("a")).To(BeTrue())
	g.Expect(c.reserve("a")).To(BeFalse(), "the same delivery id twice is a replay")
	g.Expect(c.reserve("b")).To(BeTrue())
}

func TestDeliveryCacheIsBoundedAndEvictsLeastRecent(t *testing.T) {
	g := NewWithT(t)
	c := newDeliveryCache(3)
	for _, id := range []string{"a", "b", "c"} {
		g.Expect(c.reserve(id)).To(BeTrue())
	}
	g.Expect(c.reserve("a")).To(BeFalse()) // touches a: b is now the oldest
	g.Expect(c.reserve("d")).To(BeTrue())  // evicts b
	g.Expect(c.order.Len()).To(Equal(3))
	g.Expect(c.reserve("b")).To(BeTrue(), "b was evicted")
	g.Expect(c.reserve("a")).To(BeFalse(), "a was kept as recently seen")

	big := newDeliveryCache(100)
	for i := range 1000 {
		big.reserve(fmt.Sprint(i))
	}
	g.Expect(big.order.Len()).To(Equal(100))
	g.Expect(big.index).To(HaveLen(100))
}

func TestDeliveryCacheReleaseAllowsRetry(t *testing.T) {
	g := NewWithT(t)
	c := newDeliveryCache(0)
	g.Expect(c.max).To(Equal(defaultSeenDeliveries))
	g.Expect(c.reserve("x")).To(BeTrue())
	c.release("x")
	g.Expect(c.reserve("x")).To(BeTrue(), "a delivery whose handling failed may be sent again")
	c.release("never-seen") // no panic
}
