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
	"context"
	"errors"
	"testing"
	"time"

	. "github.com/onsi/gomega"
	ctrl "sigs.k8s.io/controller-runtime"
)

type testState struct {
	Flow
	ran []string
}

func record(name string, then func(*testState) error) Step[*testState] {
	return Step[*testState]{Name: name, Run: func(_ context.Context, s *testState) error {
		s.ran = append(s.ran, name)
		return then(s)
	}}
}

func TestRunStepsRunsInOrderUntilStopOrError(t *testing.T) {
	boom := errors.New("boom")
	ok := func(*testState) error { return nil }
	cases := []struct {
		name    string
		steps   []Step[*testState]
		wantRan []string
		wantErr error
		wantReq time.Duration
	}{
		{"all run", []Step[*testState]{record("a", ok), record("b", ok)}, []string{"a", "b"}, nil, 0},
		{"stop ends after the step", []Step[*testState]{
			record("a", func(s *testState) error { s.Stop(); return nil }), record("b", ok)}, []string{"a"}, nil, 0},
		{"error ends at once and drops the requeue", []Step[*testState]{
			record("a", func(s *testState) error { s.RequeueAfter(time.Minute); return nil }),
			record("b", func(*testState) error { return boom }), record("c", ok)}, []string{"a", "b"}, boom, 0},
		{"shortest requeue wins", []Step[*testState]{
			record("a", func(s *testState) error { s.RequeueAfter(time.Minute); return nil }),
			record("b", func(s *testState) error { s.RequeueAfter(time.Second); s.RequeueAfter(time.Hour); return nil }),
		}, []string{"a", "b"}, nil, time.Second},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			g := NewWithT(t)
			s := &testState{}
			res, err := RunSteps(context.Background(), s, tc.steps)
			g.Expect(s.ran).To(Equal(tc.wantRan))
			if tc.wantErr != nil {
				g.Expect(err).To(MatchError(tc.wantErr))
			} else {
				g.Expect(err).NotTo(HaveOccurred())
			}
			g.Expect(res.RequeueAfter).To(Equal(tc.wantReq))
		})
	}
}

func TestFinishDropsTheRequeueBesideAnError(t *testing.T) {
	g := NewWithT(t)
	boom := errors.New("status patch refused")
	res, err := Finish(ctrl.Result{RequeueAfter: time.Minute}, boom)
	g.Expect(err).To(MatchError(boom))
	g.Expect(res.IsZero()).To(BeTrue(), "a requeue beside an error is ignored by controller-runtime, with a warning")
	res, err = Finish(ctrl.Result{RequeueAfter: time.Minute}, nil)
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(res.RequeueAfter).To(Equal(time.Minute))
}
