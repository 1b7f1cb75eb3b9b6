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

// TestReadSiteHistoryReadsTheCommitsThatChangedTheSiteNewestFirst: dev changes twice and prod once after the
// first sync; dev's history of 2 holds dev's two changes (not prod's), each with dev's manifest at it and at
// the commit before it that changed dev's folder, and says older ones exist. A branch not there yet is an
// empty history.
func TestReadSiteHistoryReadsTheCommitsThatChangedTheSiteNewestFirst(t *testing.T) {
	g := NewWithT(t)
	e := newSyncEnv(t, baseRepo())
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	fresh := e.opts
	fresh.WorkDir = t.TempDir()
	empty, err := NewSyncer(SyncerOptions{}).ReadSiteHistory(ctx, fresh, "", "dev", 2)
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(empty.Head).To(BeEmpty())
	g.Expect(empty.Commits).To(BeEmpty())

	first := e.sync(t, nil)
	wt := e.srv.Clone(t, e.repo)
	wt.Write("overlays/dev/site-values.yaml", siteValues(2, "nginx:1.25"))
	wt.Commit("dev: two replicas")
	wt.Push()
	second := e.sync(t, &first)
	wt.Write("overlays/prod/site-values.yaml", siteValues(4, "nginx:1.26"))
	wt.Commit("prod: four replicas")
	wt.Push()
	third := e.sync(t, &second)
	wt.Write("overlays/dev/site-values.yaml", siteValues(5, "nginx:1.25"))
	wt.Commit("dev: five replicas")
	wt.Push()
	fourth := e.sync(t, &third)

	h, err := NewSyncer(SyncerOptions{}).ReadSiteHistory(ctx, fresh, fourth.RenderedRevision, "dev", 2)
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(h.Head).To(Equal(fourth.RenderedRevision))
	g.Expect(h.Path).To(Equal("dev"))
	g.Expect(h.More).To(BeTrue(), "the first sync changed dev too")
	g.Expect(h.Commits).To(HaveLen(2))
	now, before := h.Commits[0], h.Commits[1]
	g.Expect([]string{now.Commit, now.Previous, before.Commit, before.Previous}).To(Equal([]string{
		fourth.RenderedRevision, second.RenderedRevision, second.RenderedRevision, first.RenderedRevision}))
	g.Expect([]string{now.SourceRevision, before.SourceRevision}).To(Equal([]string{fourth.SourceRevision,
		second.SourceRevision}))
	g.Expect(now.Trailers).To(ContainElements(Trailer{Key: TrailerSourceRevision, Value: fourth.SourceRevision},
		Trailer{Key: TrailerSites, Value: "dev"}))
	g.Expect(string(now.Manifest.YAML)).To(ContainSubstring("replicas: 5"))
	g.Expect(string(now.PreviousManifest.YAML)).To(ContainSubstring("replicas: 2"))
	g.Expect(string(before.PreviousManifest.YAML)).To(ContainSubstring("replicas: 1"))
	g.Expect(now.Subject).To(HavePrefix("siteops: render dev from "))
}
