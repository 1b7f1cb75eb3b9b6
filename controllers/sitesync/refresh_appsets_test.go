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
	"time"

	. "github.com/onsi/gomega"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	gitopsv1alpha1 "github.com/siteops/siteops/apis/gitops/v1alpha1"
)

// newAppSet creates an ApplicationSet in ns labelled for the SiteSync sitesync ("" for no label).
func newAppSet(t *testing.T, ns, name, sitesync string) {
	t.Helper()
	u := &unstructured.Unstructured{}
	u.SetGroupVersionKind(appSetGVK())
	u.SetNamespace(ns)
	u.SetName(name)
	if sitesync != "" {
		u.SetLabels(map[string]string{gitopsv1alpha1.LabelSiteSync: sitesync})
	}
	u.Object["spec"] = map[string]any{"generators": []any{}}
	NewWithT(t).Expect(suite.k8s.Create(t.Context(), u)).To(Succeed())
}

// appSetAnnotations reads the annotations of ApplicationSet ns/name.
func appSetAnnotations(g Gomega, t *testing.T, ns, name string) map[string]string {
	u := &unstructured.Unstructured{}
	u.SetGroupVersionKind(appSetGVK())
	g.Expect(suite.k8s.Get(t.Context(), client.ObjectKey{Namespace: ns, Name: name}, u)).To(Succeed())
	return u.GetAnnotations()
}

// TestANewSiteRefreshesTheApplicationSetOfTheSiteSync: a push that writes the folder of a site without an
// Application (a new site) asks the ApplicationSets labelled for the SiteSync to run their generators now;
// an ApplicationSet labelled for another SiteSync, or not at all, is left alone.
func TestANewSiteRefreshesTheApplicationSetOfTheSiteSync(t *testing.T) {
	useSuite(t)
	g := NewWithT(t)
	ns := newNamespace(t)
	newAppSet(t, ns, "siteops-sites", "sites")
	newAppSet(t, ns, "other-sites", "other")
	newAppSet(t, ns, "unlabelled", "")
	newApp(t, ns, "dev")
	_, _, ss := renderedSiteSync(t, ns, "dev", "prod")
	prod, _ := siteStatus(ss, "prod")
	g.Expect(prod.Delivery).To(Equal(gitopsv1alpha1.DeliveryNoApplication))
	g.Eventually(func(g Gomega) {
		g.Expect(appSetAnnotations(g, t, ns, "siteops-sites")).To(HaveKeyWithValue(appSetRefreshAnnotation, "true"))
	}).WithTimeout(waitTimeout).Should(Succeed())
	g.Consistently(func(g Gomega) {
		g.Expect(appSetAnnotations(g, t, ns, "other-sites")).NotTo(HaveKey(appSetRefreshAnnotation))
		g.Expect(appSetAnnotations(g, t, ns, "unlabelled")).NotTo(HaveKey(appSetRefreshAnnotation))
	}).WithTimeout(2 * time.Second).Should(Succeed())
}

// clearAppSetRefresh removes the refresh annotation from ApplicationSet ns/name, as Argo CD's ApplicationSet
// controller does at the end of a reconcile, whether it generated anything or not.
func clearAppSetRefresh(t *testing.T, ns, name string) {
	t.Helper()
	u := &unstructured.Unstructured{}
	u.SetGroupVersionKind(appSetGVK())
	u.SetNamespace(ns)
	u.SetName(name)
	patch := fmt.Appendf(nil, `{"metadata":{"annotations":{%q:null}}}`, appSetRefreshAnnotation)
	NewWithT(t).Expect(suite.k8s.Patch(t.Context(), u, client.RawPatch(types.MergePatchType, patch))).To(Succeed())
}

// TestANewSiteWithoutItsApplicationAsksTheApplicationSetAgain: when the ApplicationSet cleared siteops' ask but
// the new site still has no Application (Argo CD missed it), siteops asks again once appSetAskAgain has passed,
// not before; once the site's Application exists, it asks no more.
func TestANewSiteWithoutItsApplicationAsksTheApplicationSetAgain(t *testing.T) {
	useSuite(t)
	g := NewWithT(t)
	ns := newNamespace(t)
	newAppSet(t, ns, "siteops-sites", "sites")
	newApp(t, ns, "dev")
	key, _, _ := renderedSiteSync(t, ns, "dev", "prod")
	asked := func(g Gomega) map[string]string { return appSetAnnotations(g, t, ns, "siteops-sites") }
	g.Eventually(func(g Gomega) {
		g.Expect(asked(g)).To(HaveKeyWithValue(appSetRefreshAnnotation, "true"))
	}).WithTimeout(waitTimeout).Should(Succeed())

	clearAppSetRefresh(t, ns, "siteops-sites")
	requestSync(t, key, "before the ask is due")
	g.Consistently(func(g Gomega) {
		g.Expect(asked(g)).NotTo(HaveKey(appSetRefreshAnnotation))
	}).WithTimeout(2 * time.Second).Should(Succeed())

	suite.clock.advance(appSetAskAgain + time.Second)
	requestSync(t, key, "after the ask is due")
	g.Eventually(func(g Gomega) {
		g.Expect(asked(g)).To(HaveKeyWithValue(appSetRefreshAnnotation, "true"))
	}).WithTimeout(waitTimeout).Should(Succeed())

	newApp(t, ns, "prod")
	waitSite(t, key, "prod", func(g Gomega, s gitopsv1alpha1.SiteStatus) {
		g.Expect(s.Delivery).NotTo(Equal(gitopsv1alpha1.DeliveryNoApplication), deliveryOf(s))
	})
	clearAppSetRefresh(t, ns, "siteops-sites")
	suite.clock.advance(appSetAskAgain + time.Second)
	requestSync(t, key, "the site has its Application")
	g.Consistently(func(g Gomega) {
		g.Expect(asked(g)).NotTo(HaveKey(appSetRefreshAnnotation))
	}).WithTimeout(2 * time.Second).Should(Succeed())
}
