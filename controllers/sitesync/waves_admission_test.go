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
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	gitopsv1alpha1 "github.com/siteops/siteops/apis/gitops/v1alpha1"
)

// TestWavesAdmissionAcceptsGlobsSchedulesAndZones: waves with names and globs, a soak, an approval gate, an
// analysis of two templates with an argument and its run history limit, rings given as percentages (the same
// one twice) with maxFailures as a count or a percentage and maxConcurrent, a progress deadline, Revert and
// freeze windows in UTC and Europe/Berlin pass admission, so the rejections of the matrix
// (sitesynctest.InvalidSiteSyncs) are due to their one bad field.
func TestWavesAdmissionAcceptsGlobsSchedulesAndZones(t *testing.T) {
	useSuite(t)
	g := NewWithT(t)
	ss := validSiteSync(newNamespace(t))
	ss.Spec.Waves = []gitopsv1alpha1.Wave{
		{Name: "canary", Sites: []string{"dev"}, Soak: &metav1.Duration{Duration: 10 * time.Minute}},
		{Name: "edge", Sites: []string{"edge-*", "eu-[ab]", "eu-[^c]x", "site-?"}, RequireApproval: true,
			Analysis: &gitopsv1alpha1.WaveAnalysis{
				Templates: []gitopsv1alpha1.AnalysisTemplateRef{{TemplateName: "error-rate"},
					{TemplateName: "slo.latency", ClusterScope: true}},
				Args: []gitopsv1alpha1.AnalysisArgument{{Name: "threshold", Value: "0.01"}}}},
		{Name: "ring-1", Sites: []string{"25%"}, MaxFailures: ptr.To(intstr.FromString("10%")),
			MaxConcurrent: ptr.To[int32](5)},
		{Name: "ring-2", Sites: []string{"25%"}, MaxFailures: ptr.To(intstr.FromInt32(2))},
		{Name: "ring-3", Sites: []string{"100%"}, MaxFailures: ptr.To(intstr.FromString("0%"))},
	}
	ss.Spec.AnalysisRunHistoryLimit = ptr.To[int32](3)
	ss.Spec.ProgressDeadline = &metav1.Duration{Duration: 15 * time.Minute}
	ss.Spec.OnFailure = gitopsv1alpha1.OnFailureRevert
	ss.Spec.Freeze = []gitopsv1alpha1.FreezeWindow{
		{Schedule: "0 18 * * 5", Duration: metav1.Duration{Duration: 62 * time.Hour}, TimeZone: "Europe/Berlin"},
		{Schedule: "@daily", Duration: metav1.Duration{Duration: time.Hour}, TimeZone: "UTC"},
		{Schedule: "*/30 9-17 * 12 MON-FRI", Duration: metav1.Duration{Duration: 5 * time.Minute},
			TimeZone: "America/Argentina/Buenos_Aires"},
	}
	g.Expect(suite.k8s.Create(t.Context(), ss, client.DryRunAll)).To(Succeed())
	g.Expect(ss.Spec.Waves).To(HaveLen(5))
	g.Expect(ss.Spec.Waves[2].MaxFailures.String()).To(Equal("10%"))
	g.Expect(ss.Spec.Freeze[0].TimeZone).To(Equal("Europe/Berlin"))
	g.Expect(ss.Spec.Waves[1].Analysis.Templates).To(HaveLen(2))
}
