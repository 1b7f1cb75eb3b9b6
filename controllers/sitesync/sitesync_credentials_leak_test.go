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
	"encoding/json"
	"testing"

	. "github.com/onsi/gomega"
	"sigs.k8s.io/controller-runtime/pkg/client"

	gitopsv1alpha1 "github.com/siteops/siteops/apis/gitops/v1alpha1"
	"github.com/siteops/siteops/gitops"
	"github.com/siteops/siteops/test/gitserver"
)

// assertNoLeak searches the captured logs, the events and SiteSyncs of ns, and every commit on the rendered
// branch of repo for each secret value.
func assertNoLeak(t *testing.T, ns, repo string, secrets ...string) {
	t.Helper()
	g := NewWithT(t)
	var list gitopsv1alpha1.SiteSyncList
	g.Expect(suite.k8s.List(t.Context(), &list, client.InNamespace(ns))).To(Succeed())
	objects, err := json.Marshal(list)
	g.Expect(err).NotTo(HaveOccurred())
	events, err := json.Marshal(eventsOf(t.Context(), g, ns))
	g.Expect(err).NotTo(HaveOccurred())
	places := map[string]string{
		"logs":            suite.logs.String(),
		"events":          string(events),
		"status":          string(objects),
		"rendered branch": allRenderedContent(t, repo),
	}
	g.Expect(suite.logs.String()).NotTo(BeEmpty(), "the log capture works")
	for where, text := range places {
		for _, secret := range secrets {
			g.Expect(text).NotTo(ContainSubstring(secret), "a credential leaked into the %s", where)
		}
	}
}

func TestSiteSyncCredentialsNeverAppearInLogsEventsStatusOrOutput(t *testing.T) {
	useSuite(t)
	g := NewWithT(t)
	ns, repo := newNamespace(t), newRepoName(t)
	files := configRepo()
	// A failing site too, so error paths are covered by the search.
	files["overlays/broken/kustomization.yaml"] = "resources:\n- https://127.0.0.1:1/remote.yaml\n"
	suite.git.NewRepo(t, repo, files)
	gitSecret(t, ns, "git", nil)
	gitSecret(t, ns, "hook", map[string]string{"token": hookToken})
	key := client.ObjectKeyFromObject(newSiteSync(t, ns, repo, func(ss *gitopsv1alpha1.SiteSync) {
		ss.Spec.Receiver = &gitopsv1alpha1.Receiver{SecretRef: gitopsv1alpha1.LocalSecretReference{Name: "hook"}}
	}))
	source := suite.git.Head(t, repo, gitserver.DefaultBranch)

	ss := waitCondition(t, key, gitopsv1alpha1.ConditionReady, "False", gitopsv1alpha1.ReasonSitesFailed)
	g.Expect(ss.Status.SourceRevision).To(Equal(source))
	g.Expect(suite.git.Head(t, repo, gitops.DefaultTargetBranch)).NotTo(BeEmpty(), "the good sites were pushed")

	// A webhook with a bad and then a good signature, so the receiver's paths are covered too.
	body := githubPushBody(source)
	post(t, key, githubHeaders(body, "not-the-token", "leak-1"), body)
	post(t, key, githubHeaders(body, hookToken, "leak-2"), body)
	NewWithT(t).Eventually(func(g Gomega) {
		g.Expect(getSiteSync(t.Context(), g, key).Status.LastHandledTrigger).NotTo(BeEmpty())
	}).WithTimeout(waitTimeout).Should(Succeed())

	assertNoLeak(t, ns, repo, gitPassword, hookToken)
}
