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

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
)

// StallError is an error that only a change by a person can fix (a bad schedule, a missing Secret): the
// object is marked Stalled with Reason and not retried hot.
type StallError struct {
	Reason string
	Err    error
}

func (e *StallError) Error() string { return e.Err.Error() }
func (e *StallError) Unwrap() error { return e.Err }

// Stall marks err as permanent, with reason for the Stalled and Ready conditions.
func Stall(reason string, err error) error { return &StallError{Reason: reason, Err: err} }

// AsStall returns the StallError in err's chain, if any.
func AsStall(err error) (*StallError, bool) {
	var s *StallError
	ok := errors.As(err, &s)
	return s, ok
}

// Terminal is what Reconcile returns for err, and records a new stall. before are the object's conditions as
// the reconcile read them (before Summarize wrote this reconcile's). A permanent error is reported once:
//   - a new stall (Stalled in before was not True with the stall's reason and message) gets one Warning event
//     about obj, with the stall's reason and message, and is returned as a reconcile.TerminalError:
//     controller-runtime logs it once, at error level, and does not retry it;
//   - the same stall found again (a reconcile after the status write, a label change) returns nil: no event, no
//     log line, no requeue. The Stalled condition already says it.
//
// Any other error is returned as it is, for back-off.
func (e Events) Terminal(obj runtime.Object, before []metav1.Condition, err error) error {
	s, ok := AsStall(err)
	if !ok {
		return err
	}
	msg := err.Error() // the outermost message, as Summarize writes it
	if prev := meta.FindStatusCondition(before, ConditionStalled); prev != nil &&
		prev.Status == metav1.ConditionTrue && prev.Reason == s.Reason && prev.Message == ConditionMessage(msg) {
		return nil
	}
	e.Warning(obj, s.Reason, "%s", msg)
	return reconcile.TerminalError(err)
}
