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

	gitopsv1alpha1 "github.com/siteops/siteops/apis/gitops/v1alpha1"
)

// TestDeliverySaysWhenArgoCDDoesNotActOnARefresh: a pushed site whose Application keeps the refresh siteops
// asked for (Argo CD's application controller is down) stays Pending with Argo CD's last word until a minute
// has passed; then its message and Ready say Argo CD has not acted on the refresh, and when Argo CD last
// reconciled the Application. Once Argo CD acts, the site is Delivered and the message goes.
func TestDeliverySaysWhenArgoCDDoesNotActOnARefresh(t *testing.T) {
	useSuite(t)
	g := NewWithT(t)
	ns := newNamespace(t)
	newApp(t, ns, "dev")
	key, _, _ := renderedSiteSync(t, ns, "dev")
	g.Eventually(func(g Gomega) {
		g.Expect(getApp(g, t, ns, "dev").GetAnnotations()).To(HaveKeyWithValue(refreshAnnotation, refreshNormal))
	}).WithTimeout(waitTimeout).Should(Succeed())

	// Argo CD last looked before the push, and does not take the refresh.
	const lastLook = "2026-12-04T10:00:00Z"
	status := appStatus("Synced", "0123456789abcdef0123456789abcdef01234567", "Healthy", "")
	status["reconciledAt"] = lastLook
	setAppStatus(t, ns, "dev", status)
	waitSite(t, key, "dev", func(g Gomega, s gitopsv1alpha1.SiteStatus) {
		g.Expect(s.SyncStatus).To(Equal("Synced"), deliveryOf(s))
		g.Expect(s.Delivery).To(Equal(gitopsv1alpha1.DeliveryPending), deliveryOf(s))
		g.Expect(s.DeliveryMessage).NotTo(ContainSubstring("has not acted"), deliveryOf(s))
	})

	suite.clock.advance(argoCDSilence + time.Second)
	status["health"] = map[string]any{"status": "Healthy", "message": "still at the previous commit"}
	setAppStatus(t, ns, "dev", status) // an Application event, so the SiteSync is looked at again
	ss := waitSite(t, key, "dev", func(g Gomega, s gitopsv1alpha1.SiteStatus) {
		g.Expect(s.Delivery).To(Equal(gitopsv1alpha1.DeliveryPending), deliveryOf(s))
		g.Expect(s.DeliveryMessage).To(MatchRegexp(`^Argo CD has not acted on the refresh asked at `+
			`\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ \(it last reconciled the Application at `+lastLook+
			`\): its application controller is down or behind$`), deliveryOf(s))
	})
	ready := meta.FindStatusCondition(ss.Status.Conditions, gitopsv1alpha1.ConditionReady)
	g.Expect(ready.Message).To(ContainSubstring("dev Pending (Argo CD has not acted on the refresh"))

	// Argo CD is back: it takes the refresh (removes the annotation) and syncs the rendered commit.
	app := getApp(g, t, ns, "dev")
	app.SetAnnotations(nil)
	g.Expect(suite.k8s.Update(t.Context(), app)).To(Succeed())
	setAppStatus(t, ns, "dev", appStatus("Synced", ss.Status.RenderedRevision, "Healthy", ""))
	waitSite(t, key, "dev", func(g Gomega, s gitopsv1alpha1.SiteStatus) {
		g.Expect(s.Delivery).To(Equal(gitopsv1alpha1.DeliveryDelivered), deliveryOf(s))
		g.Expect(s.DeliveryMessage).NotTo(ContainSubstring("has not acted"), deliveryOf(s))
	})
}
