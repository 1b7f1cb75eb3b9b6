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
	"fmt"
	"testing"
	"time"

	. "github.com/onsi/gomega"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	clocktesting "k8s.io/utils/clock/testing"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	webappv1 "github.com/siteops/siteops/apis/webapp/v1"
)

var epoch = time.Date(2026, 11, 30, 5, 0, 0, 0, time.UTC)

var reasons = Reasons{Idle: "Idle", Failed: "ReconcileError", Retrying: "Retrying"}

func TestSummarizeSetsKstatusConditions(t *testing.T) {
	type want struct {
		ready, reconciling, stalled metav1.ConditionStatus
		readyReason                 string
	}
	cases := []struct {
		name string
		out  Outcome
		want want
	}{
		{"ready", Outcome{Ready: True("Succeeded", "all good")},
			want{metav1.ConditionTrue, metav1.ConditionFalse, metav1.ConditionFalse, "Succeeded"}},
		{"progressing", Outcome{Ready: False("RollingOut", "1 of 2"), Progressing: True("RollingOut", "1 of 2")},
			want{metav1.ConditionFalse, metav1.ConditionTrue, metav1.ConditionFalse, "RollingOut"}},
		{"waiting for a person", Outcome{Ready: False("ConfigMapMissing", "no cm"), Stalled: True("ConfigMapMissing",
			"no cm")},
			want{metav1.ConditionFalse, metav1.ConditionFalse, metav1.ConditionTrue, "ConfigMapMissing"}},
		{"transient error", Outcome{Err: errors.New("connection refused"), Ready: True("Succeeded", "ignored")},
			want{metav1.ConditionFalse, metav1.ConditionTrue, metav1.ConditionFalse, "ReconcileError"}},
		{"stall", Outcome{Err: fmt.Errorf("scrubbed: %w", Stall("BadSchedule", errors.New("no parse")))},
			want{metav1.ConditionFalse, metav1.ConditionFalse, metav1.ConditionTrue, "BadSchedule"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			g := NewWithT(t)
			obj := &webappv1.Guestbook{ObjectMeta: metav1.ObjectMeta{Generation: 4}}
			Conditions{Clock: clocktesting.NewFakePassiveClock(epoch), Reasons: reasons}.Summarize(obj, tc.out)
			get := func(typ string) metav1.Condition {
				c := meta.FindStatusCondition(obj.Status.Conditions, typ)
				g.Expect(c).NotTo(BeNil(), typ)
				g.Expect(c.ObservedGeneration).To(Equal(int64(4)))
				g.Expect(c.LastTransitionTime.Time).To(Equal(epoch))
				return *c
			}
			g.Expect(get(ConditionReady).Status).To(Equal(tc.want.ready))
			g.Expect(get(ConditionReady).Reason).To(Equal(tc.want.readyReason))
			g.Expect(get(ConditionReconciling).Status).To(Equal(tc.want.reconciling))
			g.Expect(get(ConditionStalled).Status).To(Equal(tc.want.stalled))
		})
	}
}

// TestSummarizeStallMessageIsTheOutermost: a caller that scrubbed an error of credentials wraps it; the
// conditions carry the scrubbed text, never the stall's own.
func TestSummarizeStallMessageIsTheOutermost(t *testing.T) {
	g := NewWithT(t)
	obj := &webappv1.Guestbook{}
	inner := Stall("SecretInvalid", errors.New("password hunter2 rejected"))
	Conditions{Reasons: reasons}.Summarize(obj, Outcome{Err: scrubbed{msg: "password *** rejected", err: inner}})
	g.Expect(meta.FindStatusCondition(obj.Status.Conditions, ConditionStalled).Message).To(Equal("password *** rejected"))
	g.Expect(meta.FindStatusCondition(obj.Status.Conditions, ConditionReady).Message).NotTo(ContainSubstring("hunter2"))
}

type scrubbed struct {
	msg string
	err error
}

func (e scrubbed) Error() string { return e.msg }
func (e scrubbed) Unwrap() error { return e.err }

func TestSummarizeWithoutReadyLeavesItAlone(t *testing.T) {
	g := NewWithT(t)
	obj := &webappv1.Guestbook{}
	c := Conditions{Clock: clocktesting.NewFakePassiveClock(epoch), Reasons: reasons}
	c.Set(obj, ConditionReady, *True("Succeeded", "earlier"))
	c.Summarize(obj, Outcome{Idle: "Suspended"})
	g.Expect(meta.FindStatusCondition(obj.Status.Conditions, ConditionReady).Message).To(Equal("earlier"))
	g.Expect(meta.FindStatusCondition(obj.Status.Conditions, ConditionReconciling).Reason).To(Equal("Suspended"))
}

func TestSetKeepsTransitionTimeWhileStatusHolds(t *testing.T) {
	g := NewWithT(t)
	clk := clocktesting.NewFakePassiveClock(epoch)
	c := Conditions{Clock: clk}
	obj := &webappv1.Guestbook{}
	c.Set(obj, ConditionReady, *True("Succeeded", "a"))
	clk.SetTime(epoch.Add(time.Hour))
	c.Set(obj, ConditionReady, *True("Succeeded", "b"))
	got := meta.FindStatusCondition(obj.Status.Conditions, ConditionReady)
	g.Expect(got.LastTransitionTime.Time).To(Equal(epoch))
	g.Expect(got.Message).To(Equal("b"))
	c.Set(obj, ConditionReady, *False("Failed", "c"))
	got = meta.FindStatusCondition(obj.Status.Conditions, ConditionReady)
	g.Expect(got.LastTransitionTime.Time).To(Equal(epoch.Add(time.Hour)))
	long := make([]byte, 2*maxMessageLen)
	for i := range long {
		long[i] = 'x'
	}
	c.Set(obj, ConditionReady, *False("Failed", string(long)))
	g.Expect(meta.FindStatusCondition(obj.Status.Conditions, ConditionReady).Message).To(HaveLen(maxMessageLen))
}

func TestTerminalStopsRetriesOfStallsOnly(t *testing.T) {
	g := NewWithT(t)
	terminal := func(err error) error { return Events{}.Terminal(&webappv1.Guestbook{}, nil, err) }
	stall := fmt.Errorf("reading: %w", Stall("SecretNotFound", errors.New("secret gone")))
	g.Expect(errors.Is(terminal(stall), reconcile.TerminalError(nil))).To(BeTrue())
	s, ok := AsStall(terminal(stall))
	g.Expect(ok).To(BeTrue())
	g.Expect(s.Reason).To(Equal("SecretNotFound"))
	transient := errors.New("connection refused")
	g.Expect(terminal(transient)).To(BeIdenticalTo(transient))
	g.Expect(terminal(nil)).To(BeNil())
}
