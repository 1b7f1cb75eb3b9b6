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

// Package kit is the dialect every siteops reconciler speaks. A Reconcile reads its object, defers one status
// patch, and runs an ordered list of named steps over one state value; the status patch sets the kstatus
// conditions Ready, Reconciling and Stalled with the injected clock; every visible action is one Event whose
// reason is a constant in apis/; a permanent error stalls the object instead of being retried hot.
package kit

import (
	"context"
	"time"

	ctrl "sigs.k8s.io/controller-runtime"
)

// Step is one named stage of a reconcile over the state S its steps share. A step mutates the object in
// memory (its status is patched once, at the end) and returns an error to end the reconcile.
type Step[S any] struct {
	Name string
	Run  func(ctx context.Context, s S) error
}

// Flow lets a step end a reconcile early or ask for the next one; a controller's state type embeds it.
type Flow struct {
	stopped bool
	result  ctrl.Result
}

// Stop ends the reconcile once the current step returns; the steps after it do not run.
func (f *Flow) Stop() { f.stopped = true }

// RequeueAfter asks for the object to be reconciled again after d; the shortest of several requests wins.
func (f *Flow) RequeueAfter(d time.Duration) {
	if d <= 0 {
		return
	}
	if f.result.RequeueAfter == 0 || d < f.result.RequeueAfter {
		f.result.RequeueAfter = d
	}
}

// Finish is what a Reconcile returns for the result its steps asked for and its error: with an error,
// controller-runtime retries with back-off (a terminal error: not at all) and ignores any requeue asked for, so
// the result is dropped rather than returned beside the error.
func Finish(res ctrl.Result, err error) (ctrl.Result, error) {
	if err != nil {
		return ctrl.Result{}, err
	}
	return res, nil
}

// Result is what the steps asked for so far.
func (f *Flow) Result() ctrl.Result { return f.result }

func (f *Flow) flow() *Flow { return f }

// flowing is a state that embeds Flow.
type flowing interface{ flow() *Flow }

// RunSteps runs steps in order over s until one returns an error or stops the reconcile, and returns the
// result the steps asked for. The error is returned as the step returned it: steps wrap their own errors with
// what they were doing.
func RunSteps[S flowing](ctx context.Context, s S, steps []Step[S]) (ctrl.Result, error) {
	f := s.flow()
	for _, st := range steps {
		if err := st.Run(ctx, s); err != nil {
			return ctrl.Result{}, err
		}
		if f.stopped {
			break
		}
	}
	return f.result, nil
}
