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
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	gitopsv1alpha1 "github.com/siteops/siteops/apis/gitops/v1alpha1"
)

// TestFreshStatusPlansOnTheStoredStatus: a sync that starts from an object older than the stored one (the
// cache behind this controller's last write) plans on the stored status and annotations and patches against
// the stored object; an older spec is not planned on at all.
func TestFreshStatusPlansOnTheStoredStatus(t *testing.T) {
	useSuite(t)
	g := NewWithT(t)
	ctx := t.Context()
	ss := &gitopsv1alpha1.SiteSync{ObjectMeta: metav1.ObjectMeta{Namespace: newNamespace(t), Name: "sites"},
		Spec: gitopsv1alpha1.SiteSyncSpec{Suspend: true,
			Source: gitopsv1alpha1.GitSource{URL: "https://git.example/config.git"}}}
	g.Expect(suite.k8s.Create(ctx, ss)).To(Succeed())
	stale := &gitopsv1alpha1.SiteSync{}
	g.Expect(suite.k8s.Get(ctx, client.ObjectKeyFromObject(ss), stale)).To(Succeed())

	// The write the cache has not shown yet: wave one published at revision abc.
	stored := stale.DeepCopy()
	stored.Status.Rollout = &gitopsv1alpha1.RolloutStatus{Phase: gitopsv1alpha1.RolloutProgressing, Revision: "abc",
		Wave: "one", Sites: []gitopsv1alpha1.RolloutSite{{Name: "dev", Wave: "one", State: gitopsv1alpha1.SitePublished}}}
	g.Expect(suite.k8s.Status().Patch(ctx, stored, client.MergeFrom(stale))).To(Succeed())

	r := &Reconciler{APIReader: suite.k8s}
	run := &scope{obj: stale.DeepCopy(), base: stale.DeepCopy(), before: *stale.Status.DeepCopy()}
	g.Expect(r.freshStatus(ctx, run)).To(Succeed())
	g.Expect(run.before.Rollout).NotTo(BeNil(), "the plan reads the stored rollout")
	g.Expect(run.before.Rollout.Sites).To(ConsistOf(HaveField("State", gitopsv1alpha1.SitePublished)))
	g.Expect(run.obj.Status.Rollout).To(Equal(run.before.Rollout))
	// The controller of the suite may write the status again meanwhile: the stored version is the one read.
	g.Expect(run.obj.ResourceVersion).NotTo(Equal(stale.ResourceVersion))
	g.Expect(run.obj.ResourceVersion).To(Equal(run.base.GetResourceVersion()),
		"the patch is checked against the stored one")

	// A newer spec than the one read: nothing is planned on the old one.
	newer := stored.DeepCopy()
	newer.Spec.Interval = &metav1.Duration{Duration: 42 * time.Minute}
	g.Expect(suite.k8s.Patch(ctx, newer, client.MergeFrom(stored))).To(Succeed())
	run = &scope{obj: stale.DeepCopy(), base: stale.DeepCopy(), before: *stale.Status.DeepCopy()}
	g.Expect(r.freshStatus(ctx, run)).To(MatchError(errCacheBehind))
}
