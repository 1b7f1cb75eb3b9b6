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

package gitops

import (
	"context"
	"testing"
	"time"

	. "github.com/onsi/gomega"
)

func TestSyncRetriesWhenAnotherWriterPushesBetweenFetchAndPush(t *testing.T) {
	t.Parallel()
	g := NewWithT(t)
	e := newSyncEnv(t, baseRepo())
	first := e.sync(t, nil)

	src := e.srv.Clone(t, e.repo)
	src.Write("overlays/dev/site-values.yaml", siteValues(4, "nginx:1.27"))
	pushed := src.Commit("dev: four replicas")
	src.Push()

	writer := e.srv.Clone(t, e.repo)
	var foreign string
	e.opts.beforePush = func(attempt int) {
		if attempt == 0 { // the target branch moves after siteops fetched it
			writer.Checkout(DefaultTargetBranch)
			writer.Write("NOTES.md", "hand-written note on the rendered branch\n")
			foreign = writer.Commit("a person writes on the rendered branch")
			writer.Push()
		}
	}
	res := e.sync(t, &first)

	g.Expect(res.PushRetries).To(Equal(1))
	g.Expect(res.Pushed).To(BeTrue())
	g.Expect(res.ForeignCommits).To(Equal([]string{foreign}))
	log := e.srv.Log(t, e.repo, DefaultTargetBranch)
	g.Expect(log).To(HaveLen(3))
	g.Expect(log[0].Trailer(TrailerSourceRevision)).To(Equal(pushed))
	g.Expect(log[1].SHA).To(Equal(foreign))
	note, ok := e.srv.ReadFile(t, e.repo, DefaultTargetBranch, "NOTES.md")
	g.Expect(ok).To(BeTrue())
	g.Expect(note).To(ContainSubstring("hand-written"))
	g.Expect(e.rendered(t, "dev")).To(ContainSubstring("replicas: 4"))

	// The next sync sees siteops' own commit on top: nothing foreign since.
	e.opts.beforePush = nil
	again := e.sync(t, &res)
	g.Expect(again.ForeignCommits).To(BeEmpty())
}

func TestSyncReportsForeignCommitsWithoutOverwritingThem(t *testing.T) {
	t.Parallel()
	g := NewWithT(t)
	e := newSyncEnv(t, baseRepo())
	first := e.sync(t, nil)

	writer := e.srv.Clone(t, e.repo)
	writer.Checkout(DefaultTargetBranch)
	writer.Write("extra/config.yaml", "kind: ConfigMap\n")
	foreign := writer.Commit("manual change")
	writer.Push()

	res := e.sync(t, &first)

	g.Expect(res.ForeignCommits).To(Equal([]string{foreign}))
	g.Expect(res.Pushed).To(BeFalse())
	g.Expect(e.srv.Files(t, e.repo, DefaultTargetBranch)).To(ContainElement("extra/config.yaml"))
}

func TestSyncGivesUpAfterBoundedPushAttempts(t *testing.T) {
	t.Parallel()
	g := NewWithT(t)
	e := newSyncEnv(t, baseRepo())
	writer := e.srv.Clone(t, e.repo)
	writer.Checkout(DefaultTargetBranch)
	n := 0
	e.opts.beforePush = func(int) { // someone always wins the race
		n++
		writer.Write("NOTES.md", time.Now().String()+string(rune('a'+n)))
		writer.Commit("racing writer")
		writer.Push()
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()

	res, err := e.syncer.Sync(ctx, e.opts)

	g.Expect(err).To(MatchError(ContainSubstring("non-fast-forward")))
	g.Expect(IsPermanent(err)).To(BeFalse())
	g.Expect(n).To(Equal(maxPushAttempts))
	g.Expect(res.PushRetries).To(Equal(maxPushAttempts - 1))
	for _, s := range res.Sites {
		g.Expect(s.Ready).To(BeFalse())
	}
}
