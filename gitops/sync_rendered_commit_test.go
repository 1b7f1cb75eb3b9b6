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
)

// TestSyncReportsTheCommitThatLastChangedEachSiteFolder: the first push is every site's rendered commit; a
// change to one overlay moves only that site's rendered commit to the new head, and a sync with nothing to
// push keeps every site's from the previous state. Argo CD's synced revision is compared with it.
func TestSyncReportsTheCommitThatLastChangedEachSiteFolder(t *testing.T) {
	g := NewWithT(t)
	e := newSyncEnv(t, baseRepo())
	first := e.sync(t, nil)
	for _, s := range first.Sites {
		g.Expect(s.RenderedCommit).To(Equal(first.RenderedRevision), s.Name)
	}

	wt := e.srv.Clone(t, e.repo)
	wt.Write("overlays/dev/site-values.yaml", siteValues(2, "nginx:1.27"))
	wt.Commit("dev: two replicas")
	wt.Push()
	second := e.sync(t, &first)

	g.Expect(second.Pushed).To(BeTrue())
	g.Expect(second.RenderedRevision).NotTo(Equal(first.RenderedRevision))
	g.Expect(site(t, second, "dev").RenderedCommit).To(Equal(second.RenderedRevision))
	g.Expect(site(t, second, "prod").RenderedCommit).To(Equal(first.RenderedRevision))
	g.Expect(site(t, second, "edge").RenderedCommit).To(Equal(first.RenderedRevision))

	third := e.sync(t, &second)
	g.Expect(third.Pushed).To(BeFalse())
	for _, s := range third.Sites {
		g.Expect(s.RenderedCommit).To(Equal(site(t, second, s.Name).RenderedCommit), s.Name)
	}
}

// TestSyncWithoutPreviousStateFindsEachSiteFoldersLastChange: a sync without the previous state (the
// SiteSync's spec changed, so every site is rendered again) that changes no folder still reports, per site,
// the commit that last changed its folder, read from the rendered branch's history.
func TestSyncWithoutPreviousStateFindsEachSiteFoldersLastChange(t *testing.T) {
	e, first, second := afterADevChange(t)
	expectLastChanges(t, e.sync(t, nil), first, second)
}

// TestSyncWithAStalePreviousStateReadsTheRenderedCommitsFromTheBranch: a sync given the state of an older sync
// (a status read from a cache that has not yet seen the last sync's patch) while the branch has moved past its
// head reports the commit that last changed each folder on the branch, not the stale one it was given.
func TestSyncWithAStalePreviousStateReadsTheRenderedCommitsFromTheBranch(t *testing.T) {
	e, first, second := afterADevChange(t)
	expectLastChanges(t, e.sync(t, &first), first, second)
}

// afterADevChange syncs baseRepo, then a change to dev's overlay, and returns both results.
func afterADevChange(t *testing.T) (e *syncEnv, first, second SyncResult) {
	t.Helper()
	e = newSyncEnv(t, baseRepo())
	first = e.sync(t, nil)
	wt := e.srv.Clone(t, e.repo)
	wt.Write("overlays/dev/site-values.yaml", siteValues(2, "nginx:1.27"))
	wt.Commit("dev: two replicas")
	wt.Push()
	second = e.sync(t, &first)
	NewWithT(t).Expect(second.Pushed).To(BeTrue())
	return e, first, second
}

// expectLastChanges checks a sync after afterADevChange that pushed nothing: dev's rendered commit is the
// second sync's, prod's and edge's the first's.
func expectLastChanges(t *testing.T, res, first, second SyncResult) {
	t.Helper()
	g := NewWithT(t)
	g.Expect(res.Pushed).To(BeFalse(), "the same output: nothing to push")
	g.Expect(site(t, res, "dev").RenderedCommit).To(Equal(second.RenderedRevision))
	g.Expect(site(t, res, "prod").RenderedCommit).To(Equal(first.RenderedRevision))
	g.Expect(site(t, res, "edge").RenderedCommit).To(Equal(first.RenderedRevision))
}
