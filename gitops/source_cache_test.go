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
	"os"
	"path/filepath"
	"testing"

	. "github.com/onsi/gomega"
)

func TestSourceFetchIsShallowThenIncremental(t *testing.T) {
	t.Parallel()
	g := NewWithT(t)
	e := newSyncEnv(t, baseRepo())
	first := e.sync(t, nil)
	shallow, err := filepath.Glob(filepath.Join(e.opts.WorkDir, "src-*", "shallow"))
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(shallow).To(HaveLen(1), "the source cache is a shallow clone")

	requests := e.srv.Requests()
	second := e.sync(t, &first)
	g.Expect(e.srv.Requests()-requests).To(BeEquivalentTo(1),
		"nothing new: one listing of the refs, source and target head together, no fetch")
	g.Expect(second.Pushed).To(BeFalse())

	wt := e.srv.Clone(t, e.repo)
	wt.Write("overlays/edge/kustomization.yaml", "resources:\n- ../../other-base\nnamePrefix: edge2-\n")
	pushed := wt.Commit("edge prefix")
	wt.Push()
	third := e.sync(t, &second)
	g.Expect(third.SourceRevision).To(Equal(pushed))
	g.Expect(e.rendered(t, "edge")).To(ContainSubstring("edge2-edge-config"))
	again, err := filepath.Glob(filepath.Join(e.opts.WorkDir, "src-*", "shallow"))
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(again).To(Equal(shallow), "the same cache was fetched into, not re-cloned")
}

func TestCorruptCacheIsRebuilt(t *testing.T) {
	t.Parallel()
	g := NewWithT(t)
	e := newSyncEnv(t, baseRepo())
	first := e.sync(t, nil)
	caches, err := filepath.Glob(filepath.Join(e.opts.WorkDir, "src-*"))
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(caches).To(HaveLen(1))
	g.Expect(os.RemoveAll(filepath.Join(caches[0], "objects"))).To(Succeed())
	g.Expect(os.WriteFile(filepath.Join(caches[0], "HEAD"), []byte("garbage"), 0o644)).To(Succeed())

	wt := e.srv.Clone(t, e.repo)
	wt.Write("overlays/dev/site-values.yaml", siteValues(3, "nginx:1.27"))
	pushed := wt.Commit("dev three")
	wt.Push()
	res := e.sync(t, &first)

	g.Expect(res.SourceRevision).To(Equal(pushed))
	g.Expect(site(t, res, "dev").Ready).To(BeTrue())
}
