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

package gitops

import (
	"context"
	"strings"
	"testing"

	. "github.com/onsi/gomega"
)

// The product's own manifests validate: built-in kinds against Kubernetes' schemas, the SiteSync, CronJob
// and Guestbook samples against the CRDs in base/crd; only kinds no CRD of the repository describes (Argo
// CD's, Argo Rollouts', cert-manager's) are left out, and said so.
func TestTheCheckoutsOwnSitesValidate(t *testing.T) {
	t.Parallel()
	g := NewWithT(t)
	c := openOwnSites(t)
	sites, err := c.Sites("")
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(sites).To(ContainElements("dev", "prod"))

	for _, r := range c.RenderSites(context.Background(), "", sites, 2, nil) {
		g.Expect(r.Err).NotTo(HaveOccurred(), "site %s", r.Name)
		unchecked := ""
		for _, w := range r.Warnings {
			if strings.HasPrefix(w, "not validated") {
				unchecked = w
			}
		}
		g.Expect(unchecked).To(ContainSubstring("argoproj.io/v1alpha1 Rollout"), "site %s", r.Name)
		g.Expect(unchecked).NotTo(ContainSubstring("gitops.siteops.dev"), "site %s", r.Name)
		g.Expect(unchecked).NotTo(ContainSubstring("webapp.my.domain"), "site %s", r.Name)
	}

	// The same sites with a misspelled field in a sample: the checkout's CRDs are what catch it.
	broken := strings.Replace(string(mustRender(t, c, "dev")), "size: 2", "sise: 2", 1)
	g.Expect(broken).To(ContainSubstring("sise: 2"))
	check, err := newChecker(c.schemas, c.tree, ValidationOptions{})
	g.Expect(err).NotTo(HaveOccurred())
	err = builder{check: check}.checkOutput(context.Background(), &siteRun{name: "dev"}, []byte(broken))
	g.Expect(err).To(MatchError(ContainSubstring("Guestbook siteops-samples/guestbook-sample: spec.sise: unknown field")))
}

func mustRender(t *testing.T, c *Checkout, site string) []byte {
	t.Helper()
	r := c.RenderSites(context.Background(), "", []string{site}, 1, nil)[0]
	if r.Err != nil {
		t.Fatal(r.Err)
	}
	return r.YAML
}
