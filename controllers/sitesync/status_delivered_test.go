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
	"fmt"
	"testing"

	. "github.com/onsi/gomega"
	clocktesting "k8s.io/utils/clock/testing"

	gitopsv1alpha1 "github.com/siteops/siteops/apis/gitops/v1alpha1"
)

// deliveredSite is a site that rendered and that Argo CD reports Synced and Healthy at its rendered commit.
func deliveredSite(name string) gitopsv1alpha1.SiteStatus {
	return gitopsv1alpha1.SiteStatus{Name: name, Ready: true,
		SiteDelivery: gitopsv1alpha1.SiteDelivery{Delivery: gitopsv1alpha1.DeliveryDelivered}}
}

// TestDeliveredCountsOnlySitesAtTheRolloutsRevision: status.delivered (`siteops status`, the dashboard, the
// DELIVERED column) counts a site only when it is Delivered at the revision the SiteSync is about: a site whose
// overlay failed to render, or that the rollout holds Pending, Halted, Failed or Reverted, runs something else
// even while Argo CD reports it Synced and Healthy there, so it never counts.
func TestDeliveredCountsOnlySitesAtTheRolloutsRevision(t *testing.T) {
	renderFailed := deliveredSite("paris")
	renderFailed.Ready, renderFailed.Reason = false, "KustomizeError"
	cases := []struct {
		name  string
		sites []gitopsv1alpha1.SiteStatus
		ro    []gitopsv1alpha1.RolloutSite
		want  string
	}{
		{"no rollout: every site delivered", []gitopsv1alpha1.SiteStatus{deliveredSite("dev"), deliveredSite("prod")},
			nil, "2/2"},
		{"no rollout: a site failed to render", []gitopsv1alpha1.SiteStatus{deliveredSite("dev"), renderFailed},
			nil, "1/2"},
		{"rollout: published and unchanged sites count",
			[]gitopsv1alpha1.SiteStatus{deliveredSite("dev"), deliveredSite("prod")},
			[]gitopsv1alpha1.RolloutSite{{Name: "dev", State: gitopsv1alpha1.SitePublished},
				{Name: "prod", State: gitopsv1alpha1.SiteUnchanged}}, "2/2"},
		{"rollout: a site failed to render",
			[]gitopsv1alpha1.SiteStatus{deliveredSite("dev"), renderFailed, deliveredSite("prod")},
			[]gitopsv1alpha1.RolloutSite{{Name: "dev", State: gitopsv1alpha1.SitePublished},
				{Name: "paris", State: gitopsv1alpha1.SiteUnchanged}, {Name: "prod", State: gitopsv1alpha1.SitePublished}},
			"2/3"},
		{"rollout: halted and reverted",
			[]gitopsv1alpha1.SiteStatus{deliveredSite("dev"), deliveredSite("paris"), deliveredSite("prod")},
			[]gitopsv1alpha1.RolloutSite{{Name: "dev", State: gitopsv1alpha1.SiteReverted},
				{Name: "paris", State: gitopsv1alpha1.SitePending}, {Name: "prod", State: gitopsv1alpha1.SitePending}},
			"0/3"},
		{"rollout: failed within maxFailures, halted",
			[]gitopsv1alpha1.SiteStatus{deliveredSite("dev"), deliveredSite("paris"), deliveredSite("prod")},
			[]gitopsv1alpha1.RolloutSite{{Name: "dev", State: gitopsv1alpha1.SitePublished},
				{Name: "paris", State: gitopsv1alpha1.SiteFailed}, {Name: "prod", State: gitopsv1alpha1.SiteHalted}},
			"1/3"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			g := NewWithT(t)
			r := &Reconciler{Clock: clocktesting.NewFakePassiveClock(epoch)}
			run := newRun(tc.sites...)
			run.obj.Status.SourceRevision, run.obj.Status.RenderedRevision = shaA, shaB
			// What a count of the sites Argo CD reports Delivered says: all of them.
			run.obj.Status.Delivered = fmt.Sprintf("%d/%d", len(tc.sites), len(tc.sites))
			if tc.ro != nil {
				run.obj.Status.Rollout = &gitopsv1alpha1.RolloutStatus{Phase: gitopsv1alpha1.RolloutComplete,
					Revision: shaA, Sites: tc.ro}
			}
			r.summarize(run, nil)
			g.Expect(run.obj.Status.Delivered).To(Equal(tc.want))
		})
	}
}

// TestDeliveredStaysEmptyWhileDeliveryIsNotObserved: without Argo CD's Applications there is no count to show.
func TestDeliveredStaysEmptyWhileDeliveryIsNotObserved(t *testing.T) {
	r := &Reconciler{Clock: clocktesting.NewFakePassiveClock(epoch)}
	run := newRun(deliveredSite("dev"))
	r.summarize(run, nil)
	NewWithT(t).Expect(run.obj.Status.Delivered).To(BeEmpty())
}
