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

package bench

import (
	"testing"
	"time"

	. "github.com/onsi/gomega"

	"github.com/siteops/siteops/test/managerproc"
)

// span is a write span from a to b (offsets from t0), with n writes.
func span(t0 time.Time, a, b time.Duration, n int) managerproc.WriteSpan {
	return managerproc.WriteSpan{First: t0.Add(a), Last: t0.Add(b), Count: n}
}

func TestPromoteSampleMeasuresFromPromoteAndFromTheOldColoursLastWrite(t *testing.T) {
	g := NewWithT(t)
	t0 := time.Date(2026, 12, 1, 20, 0, 0, 0, time.UTC)
	s := promoteSample{promoted: t0.Add(10 * time.Second),
		old: span(t0, 0, 10*time.Second-30*time.Millisecond, 50),
		cur: span(t0, 10*time.Second+120*time.Millisecond, 20*time.Second, 40)}

	g.Expect(s.toFirstWrite()).To(Equal(120 * time.Millisecond))
	g.Expect(s.gap()).To(Equal(150 * time.Millisecond))
}

func TestTwoWritersCountsEveryPairOfProcessesWhoseWriteSpansOverlap(t *testing.T) {
	t0 := time.Date(2026, 12, 1, 20, 0, 0, 0, time.UTC)
	s := time.Second
	for _, tc := range []struct {
		name  string
		spans []managerproc.WriteSpan
		want  int
	}{
		{"a chain of leaders, each after the last",
			[]managerproc.WriteSpan{span(t0, 0, 9*s, 9), span(t0, 10*s, 19*s, 9), span(t0, 20*s, 29*s, 9)}, 0},
		{"the old colour writes once more after the new one's first write",
			[]managerproc.WriteSpan{span(t0, 0, 11*s, 9), span(t0, 10*s, 19*s, 9), span(t0, 20*s, 29*s, 9)}, 1},
		{"a write at the same instant is two writers",
			[]managerproc.WriteSpan{span(t0, 0, 10*s, 9), span(t0, 10*s, 19*s, 9)}, 1},
		{"a late write of the first process overlaps both that followed",
			[]managerproc.WriteSpan{span(t0, 0, 25*s, 9), span(t0, 10*s, 19*s, 9), span(t0, 20*s, 29*s, 9)}, 2},
		{"a process that never wrote overlaps nothing",
			[]managerproc.WriteSpan{span(t0, 0, 9*s, 9), {}, span(t0, 10*s, 19*s, 9)}, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			NewWithT(t).Expect(promoteSide{spans: tc.spans}.twoWriters()).To(Equal(tc.want))
		})
	}
}

func TestPromoteSideSummaryGivesBothMeasuresP50AndP99(t *testing.T) {
	g := NewWithT(t)
	t0 := time.Date(2026, 12, 1, 20, 0, 0, 0, time.UTC)
	side := promoteSide{name: "siteops"}
	for i, ms := range []int{100, 300, 200} {
		at := t0.Add(time.Duration(i) * time.Minute)
		d := time.Duration(ms) * time.Millisecond
		side.samples = append(side.samples, promoteSample{promoted: at,
			old: span(at, -time.Second, -10*time.Millisecond, 5), cur: span(at, d, d+time.Second, 5)})
	}

	g.Expect(side.toFirstWrites()).To(Equal([]time.Duration{100 * time.Millisecond, 300 * time.Millisecond,
		200 * time.Millisecond}),
		"in sample order: quantiles work on copies")
	g.Expect(side.summary()).To(
		Equal("promote → first write p50 200 ms, p99 300 ms; last old → first new p50 210 ms, p99 310 ms"))
}

// audited is an audit event of verb on resource/name in ns by userAgent, received at t.
func audited(t time.Time, verb, ns, resource, name, userAgent string) auditEvent {
	e := auditEvent{Verb: verb, UserAgent: userAgent, Received: t}
	e.ObjectRef.Namespace, e.ObjectRef.Resource, e.ObjectRef.Name = ns, resource, name
	return e
}

func TestServiceSwitchIsTheFirstActiveServiceWriteAfterThePromoteRequest(t *testing.T) {
	g := NewWithT(t)
	t0 := time.Date(2026, 12, 1, 20, 0, 0, 0, time.UTC)
	ms := time.Millisecond
	plugin, controller := "kubectl-argo-rollouts/v0.0.0 (linux/amd64)", "rollouts-controller/v0.0.0 (linux/amd64)"
	events := []auditEvent{
		audited(t0.Add(-5*time.Second), "patch", "p6", "services", "manager-active", controller), // the previous promote's
		audited(t0, "patch", "p6", "rollouts", "manager", plugin),
		audited(t0.Add(30*ms), "patch", "p6", "services", "manager-preview", controller),
		audited(t0.Add(40*ms), "patch", "other", "services", "manager-active", controller),
		audited(t0.Add(60*ms), "patch", "p6", "services", "manager-active", controller),
		audited(t0.Add(90*ms), "patch", "p6", "services", "manager-active", controller),
	}
	side := promoteSide{samples: []promoteSample{{promoted: t0.Add(20 * ms), stopped: t0.Add(10 * ms),
		started: t0.Add(100 * ms),
		cur:     span(t0, 150*ms, time.Second, 5)}}}

	side.serviceSwitches(events, "p6", "manager-active")

	g.Expect(side.samples[0].switched).To(Equal(t0.Add(60 * ms)))
	g.Expect(side.phases()).To(
		Equal("promote → old colour stops leading p50 -10 ms, p99 -10 ms; promote → Argo Rollouts " +
			"switches the active Service p50 40 ms, p99 40 ms; → new colour leads p50 40 ms, p99 40 ms; → its first write p50 " +
			"50 ms, p99 50 ms"))
}
