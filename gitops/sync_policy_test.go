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
	"strings"
	"testing"

	. "github.com/onsi/gomega"

	"github.com/siteops/siteops/gitops/provenance"
)

// noLatestPolicy refuses Deployments whose containers use a :latest image.
const noLatestPolicy = `apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata:
  name: no-latest
spec:
  matchConstraints:
    resourceRules:
    - apiGroups: ["apps"]
      apiVersions: ["v1"]
      operations: ["CREATE", "UPDATE"]
      resources: ["deployments"]
  validations:
  - expression: "object.spec.template.spec.containers.all(c, !c.image.endsWith(':latest'))"
    messageExpression: >-
      'container images must be pinned, not ' +
      object.spec.template.spec.containers.map(c, c.image).join(', ')
`

// policyBinding binds no-latest with action to the namespaces labelled env=<env>, or to all when env is "".
func policyBinding(name, action, env string) string {
	b := "---\napiVersion: admissionregistration.k8s.io/v1\nkind: ValidatingAdmissionPolicyBinding\nmetadata:\n" +
		"  name: " + name + "\nspec:\n  policyName: no-latest\n  validationActions: [" + action + "]\n"
	if env != "" {
		b += "  matchResources:\n    namespaceSelector:\n      matchLabels:\n        env: " + env + "\n"
	}
	return b
}

// policyRepo has sites dev and prod over baseRepo's base, each in its own Namespace labelled env, and the
// policies in policies/: no-latest, denied in prod and warned everywhere.
func policyRepo() map[string]string {
	files := baseRepo()
	delete(files, "overlays/edge/kustomization.yaml")
	for _, env := range []string{"dev", "prod"} {
		files["overlays/"+env+"/kustomization.yaml"] = "namespace: shop-" + env + "\nresources:\n- ../../base\n" +
			"- namespace.yaml\npatches:\n- path: site-values.yaml\n"
		files["overlays/"+env+"/namespace.yaml"] = "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: shop-" + env +
			"\n  labels:\n    env: " + env + "\n"
	}
	files["policies/no-latest.yaml"] = noLatestPolicy + policyBinding("no-latest-prod", "Deny", "prod") +
		policyBinding("no-latest-everywhere", "Warn", "")
	return files
}

func TestSyncPolicyDeniesOnlyTheSitesItBinds(t *testing.T) {
	g := NewWithT(t)
	e := newSyncEnv(t, policyRepo())
	e.opts.Policy = PolicyOptions{Paths: []string{"policies"}}
	first := e.sync(t, nil)
	for _, s := range first.Sites {
		g.Expect(s.Ready).To(BeTrue(), "first sync, site %s: %s", s.Name, s.Message)
	}
	g.Expect(site(t, first, "dev").Policy.Summary).To(Equal("1 passed"))
	g.Expect(site(t, first, "prod").Policy.Summary).To(Equal("2 passed"))
	log := e.srv.Log(t, e.repo, DefaultTargetBranch)
	g.Expect(trailers(log[0].Message, TrailerPolicy)).To(Equal([]string{"dev: 1 passed", "prod: 2 passed"}))
	prodBefore := e.rendered(t, "prod")

	wt := e.srv.Clone(t, e.repo)
	wt.Write("overlays/dev/site-values.yaml", siteValues(1, "nginx:latest"))
	wt.Write("overlays/prod/site-values.yaml", siteValues(3, "nginx:latest"))
	wt.Commit("both sites on nginx:latest")
	wt.Push()
	res := e.sync(t, &first)

	dev, prod := site(t, res, "dev"), site(t, res, "prod")
	g.Expect(dev.Ready).To(BeTrue(), dev.Message)
	g.Expect(dev.Policy.Summary).To(Equal("0 passed, 1 warned"))
	g.Expect(dev.Policy.Findings).To(ConsistOf("Deployment shop-dev/web: Validation failed for " +
		"ValidatingAdmissionPolicy 'no-latest' with binding 'no-latest-everywhere': container images must be " +
		"pinned, not nginx:latest"))
	g.Expect(e.rendered(t, "dev")).To(ContainSubstring("nginx:latest"))
	g.Expect(prod.Ready).To(BeFalse())
	g.Expect(prod.Reason).To(Equal(FailurePolicyDenied))
	g.Expect(prod.Message).To(Equal("denied by policy: Deployment shop-prod/web: ValidatingAdmissionPolicy " +
		"'no-latest' with binding 'no-latest-prod' denied request: container images must be pinned, not nginx:latest"))
	g.Expect(prod.LastRenderedRevision).To(Equal(first.SourceRevision))
	g.Expect(e.rendered(t, "prod")).To(Equal(prodBefore), "prod keeps its last good output")
	log = e.srv.Log(t, e.repo, DefaultTargetBranch)
	g.Expect(log[0].Trailer(TrailerSites)).To(Equal("dev"))
	g.Expect(trailers(log[0].Message, TrailerPolicy)).To(Equal([]string{"dev: 0 passed, 1 warned"}))

	// A change of the policies alone checks the unchanged sites again: dev is now denied too.
	wt.Write("policies/no-latest.yaml", noLatestPolicy+policyBinding("no-latest-everywhere", "Deny", ""))
	wt.Commit("deny :latest everywhere")
	wt.Push()
	again := e.sync(t, &res)
	g.Expect(site(t, again, "dev").Reason).To(Equal(FailurePolicyDenied))
	g.Expect(site(t, again, "dev").Message).To(ContainSubstring("binding 'no-latest-everywhere' denied request"))

	// A policy folder that is not in the source is a permanent error.
	e.opts.Policy.Paths = []string{"no/such/policies"}
	_, err := e.syncer.Sync(t.Context(), e.opts)
	g.Expect(err).To(MatchError(ContainSubstring("policy path no/such/policies does not exist")))
	g.Expect(IsPermanent(err)).To(BeTrue())
}

// trailers are the values of every trailer key in a commit message, in order.
func trailers(message, key string) []string {
	var out []string
	for _, line := range strings.Split(message, "\n") {
		if k, v, ok := strings.Cut(line, ": "); ok && k == key {
			out = append(out, v)
		}
	}
	return out
}

// TestAttestationsRecordThePolicyVerdict: with a signing key and policies, each site's attestation carries the
// policies' digest, summary and findings, as its trailer and status do.
func TestAttestationsRecordThePolicyVerdict(t *testing.T) {
	t.Parallel()
	g := NewWithT(t)
	e, pgp := provenanceEnv(t)
	wt := e.srv.Clone(t, e.repo)
	for rel, content := range policyRepo() {
		wt.Write(rel, content)
	}
	wt.Write("overlays/dev/site-values.yaml", siteValues(1, "nginx:latest"))
	wt.Commit("dev on nginx:latest, policies")
	wt.Push()
	e.opts.Policy = PolicyOptions{Paths: []string{"policies"}}
	res := e.sync(t, nil)
	dev := site(t, res, "dev")
	g.Expect(dev.Ready).To(BeTrue(), dev.Message)
	g.Expect(dev.Policy.Summary).To(Equal("0 passed, 1 warned"))

	v, err := e.verify(t, "dev", "", pgp.PublicArmored)
	g.Expect(err).NotTo(HaveOccurred())
	by := v.Statement.Predicate.RunDetails.Byproducts
	g.Expect(by).To(HaveLen(1))
	g.Expect(by[0].Name).To(Equal(provenance.PolicyByproduct))
	g.Expect(by[0].Digest).To(HaveKeyWithValue("sha256", strings.TrimPrefix(dev.Policy.Digest, "sha256:")))
	g.Expect(by[0].Annotations).To(HaveKeyWithValue("summary", "0 passed, 1 warned"))
	g.Expect(by[0].Annotations["findings"]).To(ConsistOf(ContainSubstring("container images must be pinned")))
}
