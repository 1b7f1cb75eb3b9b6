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
	"testing"

	. "github.com/onsi/gomega"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
)

func counter(name string) prometheus.Counter {
	return prometheus.NewCounter(prometheus.CounterOpts{Name: name, Help: "A test counter."})
}

// TestRegisterAdoptsAnIdenticalCollector: a second identical definition gets the registered collector, so both
// writers count into the one series; a clashing definition is an error.
func TestRegisterAdoptsAnIdenticalCollector(t *testing.T) {
	g := NewWithT(t)
	reg := prometheus.NewRegistry()
	first, err := Register(reg, counter("kit_test_total"))
	g.Expect(err).NotTo(HaveOccurred())
	second, err := Register(reg, counter("kit_test_total"))
	g.Expect(err).NotTo(HaveOccurred())
	first.Inc()
	second.Inc()
	g.Expect(testutil.ToFloat64(first)).To(Equal(2.0))
	g.Expect(testutil.CollectAndCount(reg, "kit_test_total")).To(Equal(1))

	clash := prometheus.NewGauge(prometheus.GaugeOpts{Name: "kit_test_total", Help: "Another help."})
	_, err = Register(reg, clash)
	g.Expect(err).To(HaveOccurred())
}
