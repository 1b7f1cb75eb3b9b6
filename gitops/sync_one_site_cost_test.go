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
	"fmt"
	"os/exec"
	"strings"
	"testing"

	. "github.com/onsi/gomega"
)

// manySitesRepo is a shared base and n sites over it, each with its own replica count.
func manySitesRepo(n int) map[string]string {
	files := map[string]string{
		"base/kustomization.yaml": "resources:\n- deployment.yaml\n",
		"base/deployment.yaml":    deployment("web", "nginx:1.25", 1),
	}
	for i := range n {
		dir := fmt.Sprintf("overlays/site-%02d/", i)
		files[dir+"kustomization.yaml"] = "resources:\n- ../../base\npatches:\n- path: site-values.yaml\n"
		files[dir+"site-values.yaml"] = siteValues(1+i, "nginx:1.25") // a folder of its own per site
	}
	return files
}

// decodedTrees is how many trees the last Sync of sy in workDir read from its caches' stores (not remembered from
// the Sync before).
func decodedTrees(sy *Syncer, workDir string) int {
	return sy.caches.TreesDecoded(workDir + "/")
}

// git runs the git CLI on the server's bare repository and returns its output lines.
func (e *syncEnv) git(t *testing.T, args ...string) []string {
	t.Helper()
	out, err := exec.Command("git", append([]string{"--git-dir", e.srv.GitDir(e.repo)}, args...)...).Output()
	if err != nil {
		t.Fatalf("git %v: %v", args, err)
	}
	return strings.Split(strings.TrimSpace(string(out)), "\n")
}

// TestSyncOfOneSiteReadsAndWritesOnlyWhatChanged changes one site of many and checks, by counting, that the
// Sync's cost does not follow the number of sites: it decodes only the folders on the changed paths (the
// others are remembered from the Sync before), the sites share one set of base entries to check, the
// rendered commit adds exactly four objects (commit, root tree, the site's folder, its manifest) and every
// other site's folder keeps its tree hash.
func TestSyncOfOneSiteReadsAndWritesOnlyWhatChanged(t *testing.T) {
	const sites = 40
	g := NewWithT(t)
	e := newSyncEnv(t, manySitesRepo(sites))
	first := e.sync(t, nil)
	g.Expect(decodedTrees(e.syncer, e.opts.WorkDir)).To(BeNumerically(">=", sites),
		"the first Sync decodes every site's folder")
	warm := e.sync(t, &first) // nothing changed: as a running controller, every folder is remembered
	g.Expect(warm.Pushed).To(BeFalse())
	before := e.srv.Head(t, e.repo, DefaultTargetBranch)

	wt := e.srv.Clone(t, e.repo)
	wt.Write("overlays/site-07/site-values.yaml", siteValues(5, "nginx:1.27"))
	wt.Commit("site-07: five replicas")
	wt.Push()
	res := e.sync(t, &warm)
	g.Expect(res.Pushed).To(BeTrue())
	g.Expect(site(t, res, "site-07").RenderedCommit).To(Equal(res.RenderedRevision))

	// Source: the root comes with the commit; overlays/ and overlays/site-07/ changed. Target: nothing new.
	g.Expect(decodedTrees(e.syncer, e.opts.WorkDir)).To(Equal(2))
	// Every site read the same entries outside its folder (the base): one set, checked once.
	g.Expect(e.memo(t).sets).To(HaveLen(1))
	g.Expect(e.memo(t).sites).To(HaveLen(sites))
	added := e.git(t, "rev-list", "--objects", res.RenderedRevision, "--not", before)
	var paths []string
	for _, line := range added {
		if f := strings.Fields(line); len(f) == 2 {
			paths = append(paths, f[1])
		}
	}
	g.Expect(added).To(HaveLen(4), "commit, root tree, site-07's tree and manifest: %v", added)
	g.Expect(paths).To(ConsistOf("site-07", "site-07/"+ManifestFile))

	oldTree := e.git(t, "ls-tree", before)
	newTree := e.git(t, "ls-tree", res.RenderedRevision)
	g.Expect(newTree).To(HaveLen(sites))
	g.Expect(oldTree).To(HaveLen(sites))
	var changed []string
	for i, line := range newTree { // mode type hash<TAB>name, in the same order
		n, o := strings.Fields(line), strings.Fields(oldTree[i])
		g.Expect(n[3]).To(Equal(o[3]))
		if n[2] != o[2] {
			changed = append(changed, n[3])
		}
	}
	g.Expect(changed).To(Equal([]string{"site-07"}))
}
