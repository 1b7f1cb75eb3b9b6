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

	. "github.com/onsi/gomega"
	dto "github.com/prometheus/client_model/go"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/metrics"

	gitopsv1alpha1 "github.com/siteops/siteops/apis/gitops/v1alpha1"
)

// gathered returns the metric family name from the controller-runtime registry, or nil.
func gathered(g Gomega, name string) *dto.MetricFamily {
	families, err := metrics.Registry.Gather()
	g.Expect(err).NotTo(HaveOccurred())
	for _, f := range families {
		if f.GetName() == name {
			return f
		}
	}
	return nil
}

// withLabels returns the metric of f whose labels include want, or nil.
func withLabels(f *dto.MetricFamily, want map[string]string) *dto.Metric {
	if f == nil {
		return nil
	}
	for _, m := range f.GetMetric() {
		n := 0
		for _, l := range m.GetLabel() {
			if v, ok := want[l.GetName()]; ok && v == l.GetValue() {
				n++
			}
		}
		if n == len(want) {
			return m
		}
	}
	return nil
}

func TestSiteSyncMetricsAfterRealSyncs(t *testing.T) {
	useSuite(t)
	g := NewWithT(t)
	ns, repo := newNamespace(t), newRepoName(t)
	files := configRepo()
	files["overlays/metricsbroken/kustomization.yaml"] = "resources:\n- no-such-file.yaml\n"
	suite.git.NewRepo(t, repo, files)
	gitSecret(t, ns, "git", nil)
	key := client.ObjectKeyFromObject(newSiteSync(t, ns, repo))
	waitCondition(t, key, gitopsv1alpha1.ConditionReady, "False", gitopsv1alpha1.ReasonSitesFailed)

	duration := withLabels(gathered(g, "siteops_sync_duration_seconds"),
		map[string]string{"namespace": ns, "name": key.Name})
	g.Expect(duration).NotTo(BeNil())
	g.Expect(duration.GetHistogram().GetSampleCount()).To(BeNumerically(">=", 1))
	g.Expect(duration.GetHistogram().GetSampleSum()).To(BeNumerically(">", 0))

	for _, site := range []string{"dev", "staging", "prod"} {
		render := withLabels(gathered(g, "siteops_render_duration_seconds"), map[string]string{"site": site})
		g.Expect(render).NotTo(BeNil(), "site %s has its own render duration", site)
		g.Expect(render.GetHistogram().GetSampleCount()).To(BeNumerically(">=", 1), site)
		g.Expect(render.GetHistogram().GetSampleSum()).To(BeNumerically(">", 0), site)
	}

	failures := withLabels(gathered(g, "siteops_render_failures_total"),
		map[string]string{"site": "metricsbroken", "reason": "GuardRefused"})
	g.Expect(failures).NotTo(BeNil())
	g.Expect(failures.GetCounter().GetValue()).To(BeNumerically(">=", 1))

	lag := gathered(g, "siteops_sync_lag_seconds")
	g.Expect(lag).NotTo(BeNil())
	g.Expect(lag.GetMetric()[0].GetHistogram().GetSampleCount()).To(BeNumerically(">=", 1),
		"the pushed commit's lag was observed")
	g.Expect(lag.GetMetric()[0].GetHistogram().GetSampleSum()).To(BeNumerically(">=", 0))

	retries := gathered(g, "siteops_git_push_retries_total")
	g.Expect(retries).NotTo(BeNil())
	g.Expect(retries.GetMetric()[0].GetCounter().GetValue()).To(BeNumerically(">=", 0))
}
