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
	"time"

	. "github.com/onsi/gomega"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	gitopsv1alpha1 "github.com/siteops/siteops/apis/gitops/v1alpha1"
	"github.com/siteops/siteops/gitops"
	"github.com/siteops/siteops/test/gitserver"
)

// gitOutage is how long the Git server stays down (issue 8, R3).
const gitOutage = 60 * time.Second

// TestSiteSyncGitServerDownReportsThenRecoversByItself: a change is pushed, then the Git server goes down for
// 60 s (its listener closed: connection refused) and a sync is requested. The SiteSync turns Ready=False with
// reason SyncFailed naming the failure, is not Stalled, and the rendered branch does not move while the server
// is down. Once the server is back on the same address, with no further trigger, the controller's own retry
// renders the change: exactly one new rendered commit on top of the old ones, none lost.
func TestSiteSyncGitServerDownReportsThenRecoversByItself(t *testing.T) {
	useSuite(t)
	g := NewWithT(t)
	srv := gitserver.Start(t, gitserver.Options{Username: gitUser, Password: gitPassword})
	ns, repo := newNamespace(t), newRepoName(t)
	srv.NewRepo(t, repo, configRepo())
	first := srv.Head(t, repo, gitserver.DefaultBranch)
	gitSecret(t, ns, "git", nil)
	key := client.ObjectKeyFromObject(newSiteSync(t, ns, repo, func(ss *gitopsv1alpha1.SiteSync) {
		ss.Spec.Source.URL = srv.URL(repo)
	}))
	waitReady(t, key, first)
	renderedBefore := srv.Log(t, repo, gitops.DefaultTargetBranch)

	wt := srv.Clone(t, repo)
	wt.Write("overlays/dev/site-values.yaml", siteValues(4, "nginx:1.27"))
	change := wt.Commit("dev: four replicas")
	wt.Push()

	srv.Stop()
	down := time.Now()
	requestSync(t, key, "while-down")
	ss := waitCondition(t, key, gitopsv1alpha1.ConditionReady, metav1.ConditionFalse, gitopsv1alpha1.ReasonSyncFailed)
	ready := meta.FindStatusCondition(ss.Status.Conditions, gitopsv1alpha1.ConditionReady)
	t.Logf("while down: Ready=False %s: %s", ready.Reason, ready.Message)
	g.Expect(ready.Message).To(ContainSubstring("connection refused"))
	g.Expect(meta.IsStatusConditionTrue(ss.Status.Conditions, gitopsv1alpha1.ConditionStalled)).To(BeFalse(),
		"an unreachable server is transient, not a stall")
	g.Expect(meta.IsStatusConditionTrue(ss.Status.Conditions, gitopsv1alpha1.ConditionReconciling)).To(BeTrue())

	time.Sleep(time.Until(down.Add(gitOutage)))
	g.Expect(srv.Log(t, repo, gitops.DefaultTargetBranch)).To(Equal(renderedBefore), "nothing pushed while down")
	still := getSiteSync(t.Context(), g, key)
	g.Expect(meta.IsStatusConditionTrue(still.Status.Conditions, gitopsv1alpha1.ConditionReady)).To(BeFalse())
	srv.Restart(t)
	up := time.Now()

	var after *gitopsv1alpha1.SiteSync
	g.Eventually(func(g Gomega) {
		after = getSiteSync(t.Context(), g, key)
		g.Expect(after.Status.SourceRevision).To(Equal(change))
		g.Expect(meta.IsStatusConditionTrue(after.Status.Conditions, gitopsv1alpha1.ConditionReady)).To(BeTrue())
	}).WithTimeout(3 * time.Minute).WithPolling(time.Second).Should(Succeed())
	t.Logf("recovered by itself %s after the server came back", time.Since(up).Round(time.Second))

	log := srv.Log(t, repo, gitops.DefaultTargetBranch)
	g.Expect(log).To(HaveLen(len(renderedBefore)+1), "exactly one new rendered commit")
	g.Expect(log[1:]).To(Equal(renderedBefore), "no rendered commit lost")
	g.Expect(log[0].Trailer(gitops.TrailerSourceRevision)).To(Equal(change))
	g.Expect(after.Status.RenderedRevision).To(Equal(log[0].SHA))
}
