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
	"strings"
	"testing"
	"time"

	. "github.com/onsi/gomega"

	"github.com/siteops/siteops/gitops/ledger"
)

// TestReadPublishesReadsTheRenderedCommitsOfTheSyncs: two syncs push two rendered commits; ReadPublishes
// reads both with their source revisions and sites, from the Syncs' cache and, as a restarted process
// does, from an empty cache that fetches the branch first.
func TestReadPublishesReadsTheRenderedCommitsOfTheSyncs(t *testing.T) {
	g := NewWithT(t)
	e := newSyncEnv(t, baseRepo())
	first := e.sync(t, nil)
	wt := e.srv.Clone(t, e.repo)
	wt.Write("overlays/dev/site-values.yaml", siteValues(2, "nginx:1.27"))
	wt.Commit("dev: two replicas")
	wt.Push()
	second := e.sync(t, &first)
	g.Expect(second.SourceTime).NotTo(BeZero())

	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	since := time.Now().Add(-time.Hour)
	fresh := e.opts
	fresh.WorkDir = t.TempDir()
	for name, read := range map[string]func() ([]string, []string, error){
		"the Syncs' cache": func() ([]string, []string, error) {
			return revsAndSites(e.syncer.ReadPublishes(ctx, e.opts, second.RenderedRevision, since))
		},
		"an empty cache": func() ([]string, []string, error) {
			return revsAndSites(NewSyncer(SyncerOptions{}).ReadPublishes(ctx, fresh, "", since))
		},
	} {
		revs, sites, err := read()
		g.Expect(err).NotTo(HaveOccurred(), name)
		g.Expect(revs).To(Equal([]string{second.SourceRevision, first.SourceRevision}), name)
		g.Expect(sites).To(Equal([]string{"dev", "dev,edge,prod"}), name)
	}
}

func revsAndSites(pubs []ledger.Publish, err error) (revs, sites []string, _ error) {
	for _, p := range pubs {
		revs = append(revs, p.SourceRevision)
		sites = append(sites, strings.Join(p.Sites, ","))
	}
	return revs, sites, err
}
