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

package sitesync

import (
	"strings"
	"testing"

	. "github.com/onsi/gomega"

	gitopsv1alpha1 "github.com/siteops/siteops/apis/gitops/v1alpha1"
	"github.com/siteops/siteops/gitops"
)

// renderedEventOf is the note of the Rendered event of the pushed rendered commit, or "" while there is none.
func renderedEventOf(g Gomega, t *testing.T, ns, rendered string) string {
	for _, n := range eventNotes(g, t, ns, gitopsv1alpha1.EventRendered) {
		if strings.HasPrefix(n, "pushed "+short(rendered)+" ") {
			return n
		}
	}
	return ""
}

// TestRenderedEventNamesTheSitesWhoseFoldersTheCommitChanged: a commit that changes dev's values and a
// comment in base makes every site's inputs new and renders all three, but only dev's output changes; the
// Rendered event of the pushed commit names dev alone.
func TestRenderedEventNamesTheSitesWhoseFoldersTheCommitChanged(t *testing.T) {
	useSuite(t)
	g := NewWithT(t)
	ns := newNamespace(t)
	key, repo, first := renderedSiteSync(t, ns, "dev", "prod", "staging")

	wt := suite.git.Clone(t, repo)
	wt.Write("overlays/dev/site-values.yaml", siteValues(4, "nginx:1.25"))
	wt.Write("base/deployment.yaml", "# the web tier\n"+configRepo()["base/deployment.yaml"])
	src := wt.Commit("dev: four replicas")
	wt.Push()
	requestSync(t, key, "dev-change")

	var ss *gitopsv1alpha1.SiteSync
	g.Eventually(func(g Gomega) {
		ss = getSiteSync(t.Context(), g, key)
		g.Expect(ss.Status.SourceRevision).To(Equal(src))
		g.Expect(ss.Status.RenderedRevision).NotTo(Equal(first.Status.RenderedRevision))
	}).WithTimeout(waitTimeout).Should(Succeed())
	g.Expect(changedFiles(t, repo, first.Status.RenderedRevision, ss.Status.RenderedRevision)).
		To(Equal([]string{"dev/" + gitops.ManifestFile}), "the commit changes dev's folder only")
	g.Eventually(func(g Gomega) {
		g.Expect(renderedEventOf(g, t, ns, ss.Status.RenderedRevision)).To(HaveSuffix(" for sites dev"))
	}).WithTimeout(waitTimeout).Should(Succeed())
}
