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
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/clock"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// The kstatus condition types every siteops object carries. Ready is the summary (True is good); Reconciling
// and Stalled are abnormal-true (True asks for attention) and stay in the list as False when all is well, so
// `kubectl wait --for=condition=Stalled=False` works.
const (
	ConditionReady       = "Ready"
	ConditionReconciling = "Reconciling"
	ConditionStalled     = "Stalled"
)

// maxMessageLen bounds a condition message; errors from kustomize or the API can be long.
const maxMessageLen = 1024

// Conditioned is an object whose status carries conditions, as every siteops API type does.
type Conditioned interface {
	client.Object
	GetConditions() []metav1.Condition
	SetConditions([]metav1.Condition)
}

// Reasons names, with an API's own constants, the reasons the kit writes for that API.
type Reasons struct {
	// Idle is the reason of Reconciling=False and Stalled=False: nothing in progress, nothing stuck.
	Idle string
	// Failed is Ready=False's reason after a transient error.
	Failed string
	// Retrying is Reconciling=True's reason after a transient error.
	Retrying string
}

// Verdict is one condition's status, reason and message.
type Verdict struct {
	Status          metav1.ConditionStatus
	Reason, Message string
}

// True is a True verdict.
func True(reason, message string) *Verdict {
	return &Verdict{Status: metav1.ConditionTrue, Reason: reason, Message: message}
}

// False is a False verdict.
func False(reason, message string) *Verdict {
	return &Verdict{Status: metav1.ConditionFalse, Reason: reason, Message: message}
}

// Outcome is how one reconcile ended, as the controller tells it.
type Outcome struct {
	// Err is the reconcile's error: a Stall, a transient error, or nil.
	Err error
	// Ready is the Ready verdict when Err is nil; nil leaves Ready as it was.
	Ready *Verdict
	// Progressing, when set and Err is nil, makes Reconciling True with its reason: the object is on its way.
	Progressing *Verdict
	// Stalled, when set and Err is nil, makes Stalled True with its reason: the controller waits for a person.
	Stalled *Verdict
	// Idle overrides Reasons.Idle for this outcome (e.g. Suspended).
	Idle string
}

// Conditions sets conditions with the injected clock and the object's generation.
type Conditions struct {
	// Clock stamps transitions; nil means the real clock.
	Clock   clock.PassiveClock
	Reasons Reasons
}

// Set sets one condition; its transition time changes only when its status does.
func (c Conditions) Set(obj Conditioned, typ string, v Verdict) {
	clk := c.Clock
	if clk == nil {
		clk = clock.RealClock{}
	}
	conds := obj.GetConditions()
	meta.SetStatusCondition(&conds, metav1.Condition{
		Type: typ, Status: v.Status, Reason: v.Reason, Message: ConditionMessage(v.Message),
		ObservedGeneration: obj.GetGeneration(), LastTransitionTime: metav1.NewTime(clk.Now()),
	})
	obj.SetConditions(conds)
}

// Summarize sets Ready, Reconciling and Stalled from out:
//   - a stall: Stalled=True and Ready=False with its reason and message, Reconciling=False;
//   - another error: Ready=False (Reasons.Failed) and Reconciling=True (Reasons.Retrying) with the message,
//     Stalled=False;
//   - no error: Ready as out.Ready says, Reconciling True only with out.Progressing, Stalled True only with
//     out.Stalled.
func (c Conditions) Summarize(obj Conditioned, out Outcome) {
	idle := out.Idle
	if idle == "" {
		idle = c.Reasons.Idle
	}
	if s, ok := AsStall(out.Err); ok {
		msg := out.Err.Error() // the outermost message: a caller may have scrubbed it
		c.Set(obj, ConditionStalled, *True(s.Reason, msg))
		c.Set(obj, ConditionReady, *False(s.Reason, msg))
		c.Set(obj, ConditionReconciling, *False(s.Reason, "waiting for a change by a person: "+msg))
		return
	}
	if out.Err != nil {
		msg := out.Err.Error()
		c.Set(obj, ConditionReady, *False(c.Reasons.Failed, msg))
		c.Set(obj, ConditionReconciling, *True(c.Reasons.Retrying, "retrying after: "+msg))
		c.Set(obj, ConditionStalled, *False(c.Reasons.Failed, "the error may be transient"))
		return
	}
	if out.Ready != nil {
		c.Set(obj, ConditionReady, *out.Ready)
	}
	switch {
	case out.Stalled != nil:
		c.Set(obj, ConditionStalled, *out.Stalled)
		c.Set(obj, ConditionReconciling, *False(out.Stalled.Reason, "waiting for a change by a person"))
	case out.Progressing != nil:
		c.Set(obj, ConditionReconciling, *out.Progressing)
		c.Set(obj, ConditionStalled, *False(idle, "nothing is stuck"))
	default:
		c.Set(obj, ConditionReconciling, *False(idle, "nothing in progress"))
		c.Set(obj, ConditionStalled, *False(idle, "nothing is stuck"))
	}
}

// ConditionMessage is s as Set writes it into a condition: cut to the bound of a condition message. A
// controller compares an earlier condition's message with it to tell whether something new happened.
func ConditionMessage(s string) string { return Truncate(s, maxMessageLen) }

// Truncate cuts s to n bytes, marking the cut.
func Truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n-3] + "..."
}
