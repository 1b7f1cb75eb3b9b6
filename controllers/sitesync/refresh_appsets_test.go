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
		g.Expect(appSetAnnotations(g, t, ns, "siteops-sites")).To(HaveKeyWithValue(appSetRefreshAnnotation, "true"))
	}).WithTimeout(waitTimeout).Should(Succeed())
	g.Consistently(func(g Gomega) {
		g.Expect(appSetAnnotations(g, t, ns, "other-sites")).NotTo(HaveKey(appSetRefreshAnnotation))
		g.Expect(appSetAnnotations(g, t, ns, "unlabelled")).NotTo(HaveKey(appSetRefreshAnnotation))
	}).WithTimeout(2 * time.Second).Should(Succeed())
}
