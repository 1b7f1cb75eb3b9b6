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
	"errors"
	"testing"

	. "github.com/onsi/gomega"
	"k8s.io/client-go/tools/events"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	webappv1 "github.com/siteops/siteops/apis/webapp/v1"
)

// TestTerminalReportsAStallOnce: a new stall gets one warning and is terminal (controller-runtime logs it once
// and does not retry); the same stall found by the next reconcile, once Summarize has written it, returns nil
// and records nothing; a different stall is new again; a transient error is returned as it is.
func TestTerminalReportsAStallOnce(t *testing.T) {
	g := NewWithT(t)
	rec := events.NewFakeRecorder(10)
	ev := Events{Recorder: rec}
	conds := Conditions{Reasons: Reasons{Idle: "Idle", Failed: "Failed", Retrying: "Retrying"}}
	obj := &webappv1.Guestbook{}
	bad := Stall("InvalidSchedule", errors.New("spec.schedule: Invalid value: \"61 * * * *\""))

	err := ev.Terminal(obj, obj.GetConditions(), bad)
	g.Expect(errors.Is(err, reconcile.TerminalError(nil))).To(BeTrue())
	g.Expect(err).To(MatchError(bad))
	conds.Summarize(obj, Outcome{Err: bad})
	g.Expect(drain(rec)).To(Equal([]string{`Warning InvalidSchedule spec.schedule: Invalid value: "61 * * * *"`}))

	for range 3 {
		g.Expect(ev.Terminal(obj, obj.GetConditions(), bad)).To(Succeed())
		conds.Summarize(obj, Outcome{Err: bad})
	}
	g.Expect(drain(rec)).To(BeEmpty())

	other := Stall("InvalidSchedule", errors.New("spec.schedule: Invalid value: \"* * * * * * *\""))
	g.Expect(errors.Is(ev.Terminal(obj, obj.GetConditions(), other), reconcile.TerminalError(nil))).To(BeTrue())
	g.Expect(drain(rec)).To(HaveLen(1))

	transient := errors.New("connection refused")
	g.Expect(ev.Terminal(obj, obj.GetConditions(), transient)).To(BeIdenticalTo(transient))
	g.Expect(ev.Terminal(obj, obj.GetConditions(), nil)).To(Succeed())
	g.Expect(drain(rec)).To(BeEmpty())
}

// drain returns the events rec holds.
func drain(rec *events.FakeRecorder) []string {
	var out []string
	for {
		select {
		case e := <-rec.Events:
			out = append(out, e)
		default:
			return out
		}
	}
}
