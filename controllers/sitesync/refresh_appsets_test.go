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
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
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
		askedAt(g, t, ns, "siteops-sites")
	}).WithTimeout(waitTimeout).Should(Succeed())
	g.Consistently(func(g Gomega) {
		g.Expect(appSetAnnotations(g, t, ns, "other-sites")).NotTo(HaveKey(appSetRefreshAnnotation))
		g.Expect(appSetAnnotations(g, t, ns, "unlabelled")).NotTo(HaveKey(appSetRefreshAnnotation))
	}).WithTimeout(2 * time.Second).Should(Succeed())
}

// askedAt is the time of siteops' last ask in ApplicationSet ns/name's refresh annotation.
func askedAt(g Gomega, t *testing.T, ns, name string) time.Time {
	v, ok := appSetAnnotations(g, t, ns, name)[appSetRefreshAnnotation]
	g.Expect(ok).To(BeTrue(), "no refresh annotation on ApplicationSet %s/%s", ns, name)
	at, err := time.Parse(time.RFC3339Nano, v)
	g.Expect(err).NotTo(HaveOccurred())
	return at
}

// TestANewSiteWithoutItsApplicationAsksTheApplicationSetAgain: when the new site still has no Application after
// an ask (Argo CD's generator failed, as it does while the branch does not exist yet, and left the annotation in
// place), siteops asks again once appSetAskAgain has passed, not before, with a new value Argo CD sees as a
// change; once the site's Application exists, it asks no more.
func TestANewSiteWithoutItsApplicationAsksTheApplicationSetAgain(t *testing.T) {
	useSuite(t)
	g := NewWithT(t)
	ns := newNamespace(t)
	newAppSet(t, ns, "siteops-sites", "sites")
	newApp(t, ns, "dev")
	key, _, _ := renderedSiteSync(t, ns, "dev", "prod")
	var first time.Time
	g.Eventually(func(g Gomega) { first = askedAt(g, t, ns, "siteops-sites") }).
		WithTimeout(waitTimeout).Should(Succeed())

	requestSync(t, key, "before the ask is due")
	g.Consistently(func(g Gomega) {
		g.Expect(askedAt(g, t, ns, "siteops-sites")).To(Equal(first))
	}).WithTimeout(2 * time.Second).Should(Succeed())

	suite.clock.advance(appSetAskAgain + time.Second)
	requestSync(t, key, "after the ask is due")
	var second time.Time
	g.Eventually(func(g Gomega) {
		second = askedAt(g, t, ns, "siteops-sites")
		g.Expect(second.Sub(first)).To(BeNumerically(">=", appSetAskAgain))
	}).WithTimeout(waitTimeout).Should(Succeed())

	newApp(t, ns, "prod")
	waitSite(t, key, "prod", func(g Gomega, s gitopsv1alpha1.SiteStatus) {
		g.Expect(s.Delivery).NotTo(Equal(gitopsv1alpha1.DeliveryNoApplication), deliveryOf(s))
	})
	suite.clock.advance(appSetAskAgain + time.Second)
	requestSync(t, key, "the site has its Application")
	g.Consistently(func(g Gomega) {
		g.Expect(askedAt(g, t, ns, "siteops-sites")).To(Equal(second))
	}).WithTimeout(2 * time.Second).Should(Succeed())
}
