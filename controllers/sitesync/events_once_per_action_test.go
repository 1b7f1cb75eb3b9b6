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

package sitesync

import (
	"errors"
	"testing"
	"time"

	. "github.com/onsi/gomega"
	"k8s.io/client-go/tools/events"
	clocktesting "k8s.io/utils/clock/testing"

	gitopsv1alpha1 "github.com/siteops/siteops/apis/gitops/v1alpha1"
	"github.com/siteops/siteops/gitops"
	"github.com/siteops/siteops/internal/kit"
)

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

func TestEmitEventsOncePerVisibleAction(t *testing.T) {
	cases := []struct {
		name   string
		before []gitopsv1alpha1.SiteStatus
		result gitops.SyncResult
		want   []string // event prefixes "<type> <reason>"
	}{
		{"push emits Rendered", nil, gitops.SyncResult{SourceRevision: shaA, RenderedRevision: shaB, Pushed: true,
			ChangedSites: []string{"dev"},
			Sites:        []gitops.SiteState{{Name: "dev", Ready: true, Rendered: true}}},
			[]string{"Normal Rendered pushed " + shaB[:12] + " rendering source " + shaA[:12] + " for sites dev"}},
		{"nothing pushed, nothing failed: no event", []gitopsv1alpha1.SiteStatus{{Name: "dev", Ready: true}},
			gitops.SyncResult{SourceRevision: shaA, Sites: []gitops.SiteState{{Name: "dev", Ready: true}}}, nil},
		{"newly failing site", []gitopsv1alpha1.SiteStatus{{Name: "dev", Ready: true, InputDigest: "d1"}},
			gitops.SyncResult{SourceRevision: shaA,
				Sites: []gitops.SiteState{{Name: "dev", InputDigest: "d2", Message: "bad patch"}}},
			[]string{"Warning SiteFailed site dev: bad patch"}},
		{"still failing with same inputs: no event",
			[]gitopsv1alpha1.SiteStatus{{Name: "dev", InputDigest: "d2", Message: "bad patch"}},
			gitops.SyncResult{SourceRevision: shaA,
				Sites: []gitops.SiteState{{Name: "dev", InputDigest: "d2", Message: "bad patch"}}}, nil},
		{"failing again with new inputs", []gitopsv1alpha1.SiteStatus{{Name: "dev", InputDigest: "d2", Message: "bad patch"}},
			gitops.SyncResult{SourceRevision: shaA,
				Sites: []gitops.SiteState{{Name: "dev", InputDigest: "d3", Message: "other"}}},
			[]string{"Warning SiteFailed site dev: other"}},
		{"new site failing on first sight", nil,
			gitops.SyncResult{SourceRevision: shaA, Sites: []gitops.SiteState{{Name: "x", Message: "m"}}},
			[]string{"Warning SiteFailed site x: m"}},
		{"foreign commits", nil, gitops.SyncResult{SourceRevision: shaA, ForeignCommits: []string{shaB}},
			[]string{"Warning ForeignCommit 1 commits on the target branch were not made by siteops: " + shaB[:12]}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			g := NewWithT(t)
			rec := events.NewFakeRecorder(10)
			r := &Reconciler{Clock: clocktesting.NewFakePassiveClock(epoch), Recorder: rec, lag: newLagTracker()}
			run := newRun(tc.before...)
			run.result = tc.result
			g.Expect(r.recordResult(t.Context(), run)).To(Succeed())
			g.Expect(r.emitEvents(t.Context(), run)).To(Succeed())
			g.Expect(drain(rec)).To(Equal(tc.want))
		})
	}
}

func TestForeignCommitEventNotRepeated(t *testing.T) {
	g := NewWithT(t)
	rec := events.NewFakeRecorder(10)
	r := &Reconciler{Clock: clocktesting.NewFakePassiveClock(epoch), Recorder: rec, lag: newLagTracker()}
	run := newRun()
	run.result = gitops.SyncResult{SourceRevision: shaA, ForeignCommits: []string{shaB}}
	g.Expect(r.recordResult(t.Context(), run)).To(Succeed())
	g.Expect(r.emitEvents(t.Context(), run)).To(Succeed())
	g.Expect(drain(rec)).To(HaveLen(1))

	again := &scope{obj: run.obj, before: *run.obj.Status.DeepCopy(), result: run.result, started: epoch}
	g.Expect(r.recordResult(t.Context(), again)).To(Succeed())
	g.Expect(r.emitEvents(t.Context(), again)).To(Succeed())
	g.Expect(drain(rec)).To(BeEmpty(), "the same foreign commits are reported once")
}

func TestFailureEventOncePerDistinctFailure(t *testing.T) {
	g := NewWithT(t)
	rec := events.NewFakeRecorder(10)
	r := &Reconciler{Clock: clocktesting.NewFakePassiveClock(epoch), Recorder: rec}
	// As Reconcile hands it to the event and the status: scrubbed of credentials.
	stalled := (&scope{}).redact.Error(kit.Stall(gitopsv1alpha1.ReasonSecretNotFound,
		errors.New(`secret "git" not found`)))

	run := newRun()
	r.emitFailureEvent(run, stalled)
	r.summarize(run, stalled)
	g.Expect(drain(rec)).To(Equal([]string{`Warning Stalled secret "git" not found`}))

	second := &scope{obj: run.obj, before: *run.obj.Status.DeepCopy(), started: epoch.Add(time.Minute)}
	r.emitFailureEvent(second, stalled)
	r.summarize(second, stalled)
	g.Expect(drain(rec)).To(BeEmpty())

	transient := errors.New("connection refused")
	third := &scope{obj: run.obj, before: *run.obj.Status.DeepCopy()}
	r.emitFailureEvent(third, transient)
	r.summarize(third, transient)
	fourth := &scope{obj: run.obj, before: *run.obj.Status.DeepCopy()}
	r.emitFailureEvent(fourth, transient)
	g.Expect(drain(rec)).To(Equal([]string{"Warning SyncFailed connection refused"}))

	r.emitFailureEvent(fourth, nil)
	g.Expect(drain(rec)).To(BeEmpty())
}
