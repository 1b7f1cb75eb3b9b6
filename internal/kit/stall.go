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

// Terminal is what Reconcile returns for err: a stall becomes reconcile.TerminalError, so controller-runtime
// does not retry it; any other error is returned as it is, for backoff.
func Terminal(err error) error {
	if _, ok := AsStall(err); ok {
		return reconcile.TerminalError(err)
	}
	return err
}
