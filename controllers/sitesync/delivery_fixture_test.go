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
	"fmt"
	"strings"
	"testing"

	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"

	gitopsv1alpha1 "github.com/siteops/siteops/apis/gitops/v1alpha1"
)

// inNamespace makes a SiteSync look for its Applications in ns (each test its own).
func inNamespace(ns string) func(*gitopsv1alpha1.SiteSync) {
	return func(ss *gitopsv1alpha1.SiteSync) { ss.Spec.Delivery = &gitopsv1alpha1.Delivery{Namespace: ns} }
}

// onlySites limits a SiteSync to the given sites.
func onlySites(sites ...string) func(*gitopsv1alpha1.SiteSync) {
	return func(ss *gitopsv1alpha1.SiteSync) { ss.Spec.Sites = sites }
}

// newApp creates the Argo CD Application of site, labelled for the SiteSync "sites", as the ApplicationSet
// in base/argocd would.
func newApp(t *testing.T, ns, site string) {
	t.Helper()
	app := newApplication()
	app.SetNamespace(ns)
	app.SetName("siteops-" + site)
	app.SetLabels(map[string]string{gitopsv1alpha1.LabelSiteSync: "sites", gitopsv1alpha1.LabelSite: site})
	app.Object["spec"] = map[string]any{"project": "default", "destination": map[string]any{"name": site}}
	NewWithT(t).Expect(suite.k8s.Create(t.Context(), app)).To(Succeed())
}

// setAppStatus writes the status Argo CD would report for site's Application (a JSON merge patch of status).
func setAppStatus(t *testing.T, ns, site string, status map[string]any) {
	t.Helper()
	data, err := json.Marshal(map[string]any{"status": status})
	NewWithT(t).Expect(err).NotTo(HaveOccurred())
	app := newApplication()
	app.SetNamespace(ns)
	app.SetName("siteops-" + site)
	NewWithT(t).Expect(suite.k8s.Status().Patch(t.Context(), app,
		client.RawPatch("application/merge-patch+json", data))).To(Succeed())
}

// appStatus is a status of an Application: sync status at revision, health, and a health message.
func appStatus(sync, revision, health, message string) map[string]any {
	return map[string]any{
		"sync":   map[string]any{"status": sync, "revision": revision},
		"health": map[string]any{"status": health, "message": message},
	}
}

// getApp reads site's Application fresh.
func getApp(g Gomega, t *testing.T, ns, site string) *unstructured.Unstructured {
	app := newApplication()
	g.Expect(suite.k8s.Get(t.Context(), client.ObjectKey{Namespace: ns, Name: "siteops-" + site}, app)).To(Succeed())
	return app
}

// warnings lists the notes of the Warning events with reason in ns.
func warnings(g Gomega, t *testing.T, ns, reason string) []string {
	var notes []string
	for _, e := range eventsOf(t.Context(), g, ns) {
		if e.Type == corev1.EventTypeWarning && e.Reason == reason {
			notes = append(notes, e.Message)
		}
	}
	return notes
}

// deliveryOf formats a site's delivery fields for failure messages.
func deliveryOf(s gitopsv1alpha1.SiteStatus) string {
	return strings.TrimSpace(fmt.Sprintf("%s %s/%s at %s (rendered %s): %s", s.Delivery, s.SyncStatus, s.Health,
		s.SyncedRevision, s.RenderedCommit, s.DeliveryMessage))
}
