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

// TestSyncRememberedGuardsMatchAFreshGuardAfterEachChange pushes changes that a guard remembered by tree
// entries could miss (a shared base, a folder replaced by a symlink, a kustomization file added next to
// another, a file a site needs removed and restored) and checks after each that every site's digest, message
// and warnings equal those of a Sync from an empty cache, which guards everything afresh.
func TestSyncRememberedGuardsMatchAFreshGuardAfterEachChange(t *testing.T) {
	g := NewWithT(t)
	e := newSyncEnv(t, baseRepo())
	prev := e.sync(t, nil)
	wt := e.srv.Clone(t, e.repo)
	steps := []struct {
		name   string
		change func()
	}{
		{"base file changed", func() { wt.Write("base/deployment.yaml", deployment("web", "nginx:1.28", 2)) }},
		{"other-base replaced by a symlink to base", func() {
			wt.Remove("other-base/kustomization.yaml")
			wt.Remove("other-base/config.yaml")
			wt.Symlink("base", "other-base")
		}},
		{"second kustomization file in a site", func() { wt.Write("overlays/dev/kustomization.yml", "resources: []\n") }},
		{"second kustomization file removed", func() { wt.Remove("overlays/dev/kustomization.yml") }},
		{"patch of prod removed", func() { wt.Remove("overlays/prod/site-values.yaml") }},
		{"patch of prod restored", func() { wt.Write("overlays/prod/site-values.yaml", siteValues(4, "nginx:1.26")) }},
	}
	for _, step := range steps {
		step.change()
		wt.Commit(step.name)
		wt.Push()

		res := e.sync(t, &prev)
		fresh := e.freshSync(t)

		g.Expect(res.SourceRevision).To(Equal(fresh.SourceRevision), step.name)
		for _, want := range fresh.Sites {
			got := site(t, res, want.Name)
			g.Expect(got.InputDigest).To(Equal(want.InputDigest), "%s: site %s", step.name, want.Name)
			g.Expect(got.Message).To(Equal(want.Message), "%s: site %s", step.name, want.Name)
			g.Expect(got.Warnings).To(Equal(want.Warnings), "%s: site %s", step.name, want.Name)
		}
		prev = res
	}
	g.Expect(site(t, prev, "prod").Ready).To(BeTrue(), site(t, prev, "prod").Message)
}

// TestSyncReusesTheGuardOfSitesWhoseFilesDidNotChange checks that a Sync after a one-site change re-walks
// that site only: the others keep the guard result of the previous Sync.
func TestSyncReusesTheGuardOfSitesWhoseFilesDidNotChange(t *testing.T) {
	g := NewWithT(t)
	e := newSyncEnv(t, baseRepo())
	first := e.sync(t, nil)
	before := e.memo(t)

	wt := e.srv.Clone(t, e.repo)
	wt.Write("overlays/dev/site-values.yaml", siteValues(2, "nginx:1.27"))
	wt.Commit("dev: two replicas")
	wt.Push()
	e.sync(t, &first)
	after := e.memo(t)

	g.Expect(after.sites).To(HaveLen(3))
	g.Expect(after.sites["overlays/dev"].in).NotTo(BeIdenticalTo(before.sites["overlays/dev"].in))
	g.Expect(after.sites["overlays/prod"].in).To(BeIdenticalTo(before.sites["overlays/prod"].in))
	g.Expect(after.sites["overlays/edge"].in).To(BeIdenticalTo(before.sites["overlays/edge"].in))
}

// freshSync syncs from an empty work dir (nothing remembered), without publishing anything new.
func (e *syncEnv) freshSync(t *testing.T) SyncResult {
	t.Helper()
	saved, savedSyncer := e.opts.WorkDir, e.syncer
	defer func() { e.opts.WorkDir, e.syncer = saved, savedSyncer }()
	e.opts.WorkDir, e.syncer = t.TempDir(), NewSyncer(SyncerOptions{})
	return e.sync(t, nil)
}

// memo returns the remembered guard results of the env's source cache.
func (e *syncEnv) memo(t *testing.T) *guardMemo {
	t.Helper()
	var found *guardMemo
	for dir, m := range e.syncer.guards.byKey {
		if len(dir) > len(e.opts.WorkDir) && dir[:len(e.opts.WorkDir)] == e.opts.WorkDir {
			found = m
		}
	}
	if found == nil {
		t.Fatal("no remembered guard results for the work dir")
	}
	return found
}
