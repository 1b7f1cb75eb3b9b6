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

	"github.com/siteops/siteops/gitops/internal/tree/treetest"
)

// TestSyncRemovesTheOutputOfADeletedOverlay: deleting a site's overlay removes that site's folder from the
// rendered branch in one commit that names it; the other sites' output is untouched and nothing is
// rendered again.
func TestSyncRemovesTheOutputOfADeletedOverlay(t *testing.T) {
	g := NewWithT(t)
	e := newSyncEnv(t, baseRepo())
	first := e.sync(t, nil)
	devBefore, prodBefore := e.rendered(t, "dev"), e.rendered(t, "prod")

	wt := e.srv.Clone(t, e.repo)
	wt.Remove("overlays/edge")
	deleted := wt.Commit("decommission edge")
	wt.Push()
	rendersBefore := e.renders.Load()

	res := e.sync(t, &first)

	g.Expect(e.renders.Load()).To(Equal(rendersBefore), "no site's inputs changed")
	g.Expect(res.Pushed).To(BeTrue())
	g.Expect(e.srv.Files(t, e.repo, DefaultTargetBranch)).To(Equal([]string{"dev/manifests.yaml", "prod/manifests.yaml"}))
	g.Expect(e.rendered(t, "dev")).To(Equal(devBefore))
	g.Expect(e.rendered(t, "prod")).To(Equal(prodBefore))
	g.Expect(res.Sites).To(HaveLen(2))
	log := e.srv.Log(t, e.repo, DefaultTargetBranch)
	g.Expect(log).To(HaveLen(2))
	g.Expect(log[0].Subject()).To(ContainSubstring("remove edge (overlay deleted)"))
	g.Expect(log[0].Trailer(TrailerSites)).To(Equal("edge"))
	g.Expect(res.ChangedSites).To(Equal([]string{"edge"}), "a removed folder is a changed one")
	g.Expect(log[0].Trailer(TrailerSourceRevision)).To(Equal(deleted))

	again := e.sync(t, &res)
	g.Expect(again.Pushed).To(BeFalse(), "the removal is done once")
	g.Expect(e.srv.Log(t, e.repo, DefaultTargetBranch)).To(HaveLen(2))
}

// TestSyncKeepsTheRenderedOutputWhenEveryOverlayIsDeleted: a push that leaves no site at all removes
// nothing; the last rendered commit stays.
func TestSyncKeepsTheRenderedOutputWhenEveryOverlayIsDeleted(t *testing.T) {
	t.Parallel()
	g := NewWithT(t)
	e := newSyncEnv(t, baseRepo())
	first := e.sync(t, nil)

	wt := e.srv.Clone(t, e.repo)
	for _, s := range []string{"dev", "prod", "edge"} {
		wt.Remove("overlays/" + s)
	}
	wt.Write("overlays/README.md", "sites go here\n")
	wt.Commit("remove every overlay")
	wt.Push()

	res := e.sync(t, &first)

	g.Expect(res.Pushed).To(BeFalse())
	g.Expect(res.Sites).To(BeEmpty())
	g.Expect(e.srv.Files(t, e.repo, DefaultTargetBranch)).To(Equal([]string{
		"dev/manifests.yaml", "edge/manifests.yaml", "prod/manifests.yaml",
	}))
	g.Expect(e.srv.Log(t, e.repo, DefaultTargetBranch)).To(HaveLen(1))
}

// TestRemovedSitesOnlyPrunesFoldersThatLeftTheSource: a previous site is removed only when its overlay
// folder is gone, it was rendered before, some site is left, and its target folder is not, does not hold and
// does not sit inside a current site's folder.
func TestRemovedSitesOnlyPrunesFoldersThatLeftTheSource(t *testing.T) {
	g := NewWithT(t)
	tree := &treetest.Map{Files: map[string]string{
		"overlays/a/kustomization.yaml": "resources: []\n",
		"overlays/broken/patch.yaml":    "{}\n", // no kustomization any more: broken, not removed
	}}
	a := &siteRun{name: "a", dir: "overlays/a", state: &SiteState{Name: "a"}, path: "clusters/a"}
	plan := &sitePlan{runs: []*siteRun{a}, byName: map[string]*siteRun{"a": a}}
	o := SyncOptions{OverlaysDir: "overlays", Target: TargetSpec{PathTemplate: "clusters/{{.Site}}"},
		Previous: map[string]SiteState{
			"a":      {Name: "a", LastRenderedRevision: "r1"},
			"gone":   {Name: "gone", LastRenderedRevision: "r1"},
			"broken": {Name: "broken", LastRenderedRevision: "r1"},
			"never":  {Name: "never"},
		}}
	g.Expect(removedSites(tree, o, plan)).To(Equal(map[string]string{"clusters/gone": "gone"}))

	o.Target.PathTemplate = "clusters" // gives "gone" the folder holding a's
	g.Expect(removedSites(tree, o, plan)).To(BeEmpty())

	o.Target.PathTemplate = "clusters/{{.Site}}"
	g.Expect(removedSites(tree, o, &sitePlan{byName: map[string]*siteRun{}})).To(BeEmpty(), "no site left")
}
