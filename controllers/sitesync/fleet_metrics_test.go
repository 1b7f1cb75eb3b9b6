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
	"strings"
	"testing"

	. "github.com/onsi/gomega"
	"github.com/prometheus/client_golang/prometheus"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	gitopsv1alpha1 "github.com/siteops/siteops/apis/gitops/v1alpha1"
)

// TestFleetCollectorCountsSitesByStateNeverBySite reads a halted two-wave rollout of four sites from status:
// the series count sites per delivery state and per wave and state, the current phase is 1 and every other
// phase 0. (The manager's scrape test reads the delivery and render series from a real sync.)
func TestFleetCollectorCountsSitesByStateNeverBySite(t *testing.T) {
	g := NewWithT(t)
	scheme := runtime.NewScheme()
	g.Expect(gitopsv1alpha1.AddToScheme(scheme)).To(Succeed())
	site := func(name string, ready bool, d gitopsv1alpha1.DeliveryState) gitopsv1alpha1.SiteStatus {
		return gitopsv1alpha1.SiteStatus{Name: name, Ready: ready, SiteDelivery: gitopsv1alpha1.SiteDelivery{Delivery: d}}
	}
	ss := &gitopsv1alpha1.SiteSync{ObjectMeta: metav1.ObjectMeta{Namespace: "fleet", Name: "shops"},
		Status: gitopsv1alpha1.SiteSyncStatus{
			Sites: []gitopsv1alpha1.SiteStatus{site("a", true, gitopsv1alpha1.DeliveryDelivered),
				site("b", true, gitopsv1alpha1.DeliveryDegraded), site("c", true, gitopsv1alpha1.DeliveryDelivered),
				site("d", false, "")},
			Rollout: &gitopsv1alpha1.RolloutStatus{Phase: gitopsv1alpha1.RolloutHalted, Wave: "canary",
				Sites: []gitopsv1alpha1.RolloutSite{
					{Name: "a", Wave: "canary", State: gitopsv1alpha1.SitePublished},
					{Name: "b", Wave: "canary", State: gitopsv1alpha1.SiteHalted},
					{Name: "c", Wave: "rest", State: gitopsv1alpha1.SitePending},
					{Name: "d", Wave: "rest", State: gitopsv1alpha1.SitePending}}},
		}}
	reader := fake.NewClientBuilder().WithScheme(scheme).WithObjects(ss).WithStatusSubresource(ss).Build()
	c := NewFleetCollector(reader)

	reg := prometheus.NewPedanticRegistry()
	g.Expect(reg.Register(c)).To(Succeed())
	fams, err := reg.Gather()
	g.Expect(err).NotTo(HaveOccurred())
	got := map[string]float64{}
	for _, f := range fams {
		for _, m := range f.GetMetric() {
			var labels []string
			for _, l := range m.GetLabel() {
				if l.GetName() != "namespace" && l.GetName() != "name" {
					labels = append(labels, l.GetName()+"="+l.GetValue())
				}
			}
			got[f.GetName()+"{"+strings.Join(labels, ",")+"}"] = m.GetGauge().GetValue()
		}
	}
	g.Expect(got).To(Equal(map[string]float64{
		"siteops_sitesync_sites{delivery=Delivered}":         2,
		"siteops_sitesync_sites{delivery=Degraded}":          1,
		"siteops_sitesync_sites{delivery=NotObserved}":       1,
		"siteops_sitesync_render_failed_sites{}":             1,
		"siteops_rollout_phase{phase=Progressing}":           0,
		"siteops_rollout_phase{phase=Analyzing}":             0,
		"siteops_rollout_phase{phase=Inconclusive}":          0,
		"siteops_rollout_phase{phase=Paused}":                0,
		"siteops_rollout_phase{phase=Soaking}":               0,
		"siteops_rollout_phase{phase=Halted}":                1,
		"siteops_rollout_phase{phase=Frozen}":                0,
		"siteops_rollout_phase{phase=WaitingForApproval}":    0,
		"siteops_rollout_phase{phase=Complete}":              0,
		"siteops_rollout_sites{state=Published,wave=canary}": 1,
		"siteops_rollout_sites{state=Halted,wave=canary}":    1,
		"siteops_rollout_sites{state=Pending,wave=rest}":     2,
	}))
}
