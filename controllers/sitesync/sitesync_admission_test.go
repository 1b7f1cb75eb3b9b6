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
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	. "github.com/onsi/gomega"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"

	gitopsv1alpha1 "github.com/siteops/siteops/apis/gitops/v1alpha1"
	"github.com/siteops/siteops/apis/gitops/v1alpha1/sitesynctest"
	"github.com/siteops/siteops/test/testenv"
)

func validSiteSync(ns string) *gitopsv1alpha1.SiteSync { return sitesynctest.Valid(ns) }

func TestSiteSyncAdmissionAppliesDefaults(t *testing.T) {
	useSuite(t)
	g := NewWithT(t)
	ss := validSiteSync(newNamespace(t))
	ss.Spec.Source.URL = "git@git.example:acme/config.git"
	ss.Spec.Suspend = true // nothing to sync here
	g.Expect(suite.k8s.Create(t.Context(), ss)).To(Succeed())
	g.Expect(ss.Spec.Interval.Duration).To(Equal(time.Minute))
	g.Expect(ss.Spec.Timeout.Duration).To(Equal(2 * time.Minute))
	g.Expect(ss.Spec.Source.OverlaysDir).To(Equal("overlays"))
	g.Expect(ss.Spec.Target.Branch).To(Equal("rendered"))
	g.Expect(ss.Spec.Target.PathTemplate).To(Equal("{{.Site}}"))
}

func TestSiteSyncAdmissionRejectsInvalidSpecsWithFieldPaths(t *testing.T) {
	useSuite(t)
	ns := newNamespace(t)
	cases := sitesynctest.InvalidSiteSyncs()
	accepted := 0
	for _, tc := range cases {
		t.Run(tc.Name, func(t *testing.T) {
			g := NewWithT(t)
			ss := validSiteSync(ns)
			ss.Name = strings.ReplaceAll(tc.Name, " ", "-")
			tc.Mutate(ss)
			err := suite.k8s.Create(t.Context(), ss, client.DryRunAll)
			if err == nil {
				accepted++
			}
			g.Expect(err).To(HaveOccurred(), "an invalid SiteSync was accepted")
			g.Expect(err.Error()).To(ContainSubstring(tc.Field), "the error names the field path")
		})
	}
	NewWithT(t).Expect(accepted).To(BeZero())
	NewWithT(t).Expect(len(cases)).To(BeNumerically(">=", 10))

	// The valid base object passes, so each rejection is due to its one change.
	NewWithT(t).Expect(suite.k8s.Create(t.Context(), validSiteSync(ns), client.DryRunAll)).To(Succeed())
}

func TestSiteSyncSampleIsAccepted(t *testing.T) {
	useSuite(t)
	g := NewWithT(t)
	raw, err := os.ReadFile(filepath.Join(testenv.RepoRoot(), "base", "samples", "gitops_v1alpha1_sitesync.yaml"))
	g.Expect(err).NotTo(HaveOccurred())
	sample := &gitopsv1alpha1.SiteSync{}
	g.Expect(yaml.UnmarshalStrict(raw, sample)).To(Succeed())
	sample.Namespace = newNamespace(t)
	g.Expect(suite.k8s.Create(t.Context(), sample, client.DryRunAll)).To(Succeed())
	g.Expect(sample.Spec.Receiver).NotTo(BeNil())
}
