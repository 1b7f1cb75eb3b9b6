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

	"github.com/siteops/siteops/internal/version"
	"github.com/siteops/siteops/test/gitserver"
)

func TestSyncFirstRunPublishesEverySiteWithTrailers(t *testing.T) {
	t.Parallel()
	g := NewWithT(t)
	e := newSyncEnv(t, baseRepo())

	res := e.sync(t, nil)

	g.Expect(res.Pushed).To(BeTrue())
	g.Expect(res.SourceRevision).To(Equal(e.srv.Head(t, e.repo, gitserver.DefaultBranch)))
	g.Expect(res.RenderedRevision).To(Equal(e.srv.Head(t, e.repo, DefaultTargetBranch)))
	g.Expect(res.Sites).To(HaveLen(3))
	for _, s := range res.Sites {
		g.Expect(s.Ready).To(BeTrue(), "site %s: %s", s.Name, s.Message)
		g.Expect(s.Rendered).To(BeTrue())
		g.Expect(s.RenderDuration).To(BeNumerically(">", 0), "site %s: its build is timed", s.Name)
		g.Expect(s.InputDigest).To(HavePrefix("sha256:"))
		g.Expect(s.LastRenderedRevision).To(Equal(res.SourceRevision))
	}
	g.Expect(e.srv.Files(t, e.repo, DefaultTargetBranch)).To(Equal([]string{
		"dev/manifests.yaml", "edge/manifests.yaml", "prod/manifests.yaml",
	}))
	g.Expect(e.rendered(t, "prod")).To(ContainSubstring("replicas: 3"))
	g.Expect(e.rendered(t, "edge")).To(ContainSubstring("name: edge-edge-config"))

	log := e.srv.Log(t, e.repo, DefaultTargetBranch)
	g.Expect(log).To(HaveLen(1))
	g.Expect(log[0].Trailer(TrailerSourceRevision)).To(Equal(res.SourceRevision))
	g.Expect(log[0].Trailer(TrailerSites)).To(Equal("dev,edge,prod"))
	g.Expect(res.ChangedSites).To(Equal([]string{"dev", "edge", "prod"}))
	g.Expect(log[0].Trailer(TrailerVersion)).To(Equal(version.Version))
	g.Expect(site(t, res, "prod").Warnings).To(ConsistOf(
		ContainSubstring(`"bases" is deprecated`), ContainSubstring(`"patchesStrategicMerge" is deprecated`)))
	g.Expect(site(t, res, "dev").Warnings).To(BeEmpty())
}

func TestSyncSiteValuesChangeRendersOnlyThatSite(t *testing.T) {
	g := NewWithT(t)
	e := newSyncEnv(t, baseRepo())
	first := e.sync(t, nil)
	beforeLog := e.srv.Log(t, e.repo, DefaultTargetBranch)
	prodBefore, edgeBefore := e.rendered(t, "prod"), e.rendered(t, "edge")

	wt := e.srv.Clone(t, e.repo)
	wt.Write("overlays/dev/site-values.yaml", siteValues(2, "nginx:1.27"))
	pushed := wt.Commit("dev: two replicas")
	wt.Push()
	rendersBefore := e.renders.Load()

	res := e.sync(t, &first)

	g.Expect(e.renders.Load() - rendersBefore).To(BeEquivalentTo(1))
	g.Expect(site(t, res, "dev").Rendered).To(BeTrue())
	g.Expect(site(t, res, "prod").Rendered).To(BeFalse())
	g.Expect(site(t, res, "edge").Rendered).To(BeFalse())
	g.Expect(site(t, res, "dev").RenderDuration).To(BeNumerically(">", 0))
	g.Expect(site(t, res, "prod").RenderDuration).To(BeZero(), "a skipped site has no build time")
	for _, s := range res.Sites {
		g.Expect(s.Ready).To(BeTrue(), s.Message)
	}
	g.Expect(site(t, res, "dev").LastRenderedRevision).To(Equal(pushed))
	g.Expect(site(t, res, "prod").LastRenderedRevision).To(Equal(first.SourceRevision))

	log := e.srv.Log(t, e.repo, DefaultTargetBranch)
	g.Expect(log).To(HaveLen(len(beforeLog) + 1))
	g.Expect(log[0].Trailer(TrailerSourceRevision)).To(Equal(pushed))
	g.Expect(log[0].Trailer(TrailerSites)).To(Equal("dev"))
	g.Expect(res.ChangedSites).To(Equal([]string{"dev"}))
	g.Expect(res.Pushed).To(BeTrue())
	g.Expect(res.RenderedRevision).To(Equal(log[0].SHA))
	g.Expect(e.rendered(t, "dev")).To(ContainSubstring("image: nginx:1.27"))
	g.Expect(e.rendered(t, "prod")).To(Equal(prodBefore))
	g.Expect(e.rendered(t, "edge")).To(Equal(edgeBefore))
	g.Expect(changedFiles(t, e, log[1].SHA, log[0].SHA)).To(Equal([]string{"dev/manifests.yaml"}))
}

func TestSyncWithoutSourceChangesMakesNoCommitAndNoRender(t *testing.T) {
	g := NewWithT(t)
	e := newSyncEnv(t, baseRepo())
	first := e.sync(t, nil)
	rendersBefore := e.renders.Load()

	res := e.sync(t, &first)

	g.Expect(e.renders.Load()).To(Equal(rendersBefore))
	g.Expect(res.Pushed).To(BeFalse())
	g.Expect(res.RenderedRevision).To(Equal(first.RenderedRevision))
	g.Expect(res.ChangedSites).To(BeEmpty())
	g.Expect(e.srv.Log(t, e.repo, DefaultTargetBranch)).To(HaveLen(1))
	for _, s := range res.Sites {
		g.Expect(s.Ready).To(BeTrue())
		g.Expect(s.Rendered).To(BeFalse())
	}
}

func TestSyncWithoutPreviousStateRendersButCommitsNothingWhenBytesAreEqual(t *testing.T) {
	t.Parallel()
	g := NewWithT(t)
	e := newSyncEnv(t, baseRepo())
	e.sync(t, nil)

	e.opts.WorkDir = t.TempDir() // a restarted controller with a fresh cache and no status
	res := e.sync(t, nil)

	g.Expect(res.Pushed).To(BeFalse())
	g.Expect(e.srv.Log(t, e.repo, DefaultTargetBranch)).To(HaveLen(1))
	for _, s := range res.Sites {
		g.Expect(s.Rendered).To(BeTrue())
		g.Expect(s.Ready).To(BeTrue())
	}
}

// changedFiles lists the files that differ between two commits of the served repository.
func changedFiles(t *testing.T, e *syncEnv, from, to string) []string {
	t.Helper()
	paths, err := ChangedPaths(e.srv.GitDir(e.repo), from, to)
	if err != nil {
		t.Fatal(err)
	}
	return paths
}
