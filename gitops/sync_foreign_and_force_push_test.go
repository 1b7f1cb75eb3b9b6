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
	"testing"

	. "github.com/onsi/gomega"

	"github.com/siteops/siteops/test/gitserver"
)

// TestSyncForeignCommitThenForcePushedSourceLosesNoRenderedCommit is issue 8's R3 Git case: someone commits
// on the rendered branch by hand and then the source branch is force-pushed to a rewritten history. The next
// sync follows the new source, reports the foreign commit, keeps its file, and puts exactly one commit on top
// of the rendered branch: every rendered commit from before (siteops' and the foreign one) is still there.
func TestSyncForeignCommitThenForcePushedSourceLosesNoRenderedCommit(t *testing.T) {
	t.Parallel()
	g := NewWithT(t)
	e := newSyncEnv(t, baseRepo())
	first := e.sync(t, nil)
	stale := e.srv.Clone(t, e.repo) // still at the initial commit
	wt := e.srv.Clone(t, e.repo)
	wt.Write("overlays/dev/site-values.yaml", siteValues(2, "nginx:1.27"))
	wt.Commit("dev: two")
	wt.Push()
	second := e.sync(t, &first)

	writer := e.srv.Clone(t, e.repo)
	writer.Checkout(DefaultTargetBranch)
	writer.Write("extra/notes.yaml", "kind: ConfigMap\n")
	foreign := writer.Commit("manual change on the rendered branch")
	writer.Push()
	before := e.srv.Log(t, e.repo, DefaultTargetBranch)

	stale.Write("overlays/dev/site-values.yaml", siteValues(7, "nginx:1.29"))
	forced := stale.Commit("dev: seven, history rewritten")
	stale.ForcePush()
	g.Expect(e.srv.Head(t, e.repo, gitserver.DefaultBranch)).To(Equal(forced))

	res := e.sync(t, &second)

	g.Expect(res.SourceRevision).To(Equal(forced))
	g.Expect(res.ForeignCommits).To(ContainElement(foreign))
	g.Expect(site(t, res, "dev").Ready).To(BeTrue())
	g.Expect(e.rendered(t, "dev")).To(ContainSubstring("replicas: 7"))
	after := e.srv.Log(t, e.repo, DefaultTargetBranch)
	g.Expect(after).To(HaveLen(len(before)+1), "one new rendered commit")
	g.Expect(after[1:]).To(Equal(before), "no rendered commit lost, the foreign one included")
	g.Expect(after[0].Trailer(TrailerSourceRevision)).To(Equal(forced))
	g.Expect(e.srv.Files(t, e.repo, DefaultTargetBranch)).To(ContainElement("extra/notes.yaml"))
	t.Logf("rendered branch: %d commits before, %d after, foreign %s kept", len(before), len(after), foreign[:12])
}
