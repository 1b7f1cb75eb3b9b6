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
	"testing"

	. "github.com/onsi/gomega"
	"sigs.k8s.io/controller-runtime/pkg/client"

	gitopsv1alpha1 "github.com/siteops/siteops/apis/gitops/v1alpha1"
)

// TestWavesFirstRenderGoesWaveByWave: a SiteSync created with waves renders its sites for the first time
// wave by wave: dev (wave one) is committed, prod waits for wave one. The sites are not in the status yet when
// the first sync plans; they must not be held silently with the rollout called Complete.
func TestWavesFirstRenderGoesWaveByWave(t *testing.T) {
	useSuite(t)
	g := NewWithT(t)
	ns := newNamespace(t)
	newApp(t, ns, "dev")
	newApp(t, ns, "prod")
	repo := newRepoName(t)
	suite.git.NewRepo(t, repo, configRepo())
	gitSecret(t, ns, "git", nil)
	ro := rollout{ns: ns, repo: repo, key: client.ObjectKeyFromObject(newSiteSync(t, ns, repo, inNamespace(ns),
		onlySites("dev", "prod"),
		func(ss *gitopsv1alpha1.SiteSync) {
			ss.Spec.Waves = []gitopsv1alpha1.Wave{{Name: "one", Sites: []string{"dev"}}, {Name: "two", Sites: []string{"prod"}}}
		}))}
	ro.waitRollout(t, func(g Gomega, st *gitopsv1alpha1.RolloutStatus) {
		g.Expect(st.Phase).To(Equal(gitopsv1alpha1.RolloutProgressing), st.Message)
		g.Expect(st.Wave).To(Equal("one"))
		g.Expect(rolloutSite(g, st, "dev").State).To(Equal(gitopsv1alpha1.SitePublished))
		g.Expect(rolloutSite(g, st, "prod").State).To(Equal(gitopsv1alpha1.SitePending))
		g.Expect(rolloutSite(g, st, "prod").WaitingFor).To(Equal("wave one"))
	})
	_, ok := renderedFile(t, repo, "dev")
	g.Expect(ok).To(BeTrue(), "dev is committed")
	_, ok = renderedFile(t, repo, "prod")
	g.Expect(ok).To(BeFalse(), "prod waits for wave one")
}
