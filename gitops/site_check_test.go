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
	"testing"

	. "github.com/onsi/gomega"

	"github.com/siteops/siteops/gitops/internal/tree/treetest"
	"github.com/siteops/siteops/gitops/validate"
)

// gadgetCRD has a defaulted field: validation prunes and defaults a Gadget as kube-apiserver does.
const gadgetCRD = `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: gadgets.example.com
spec:
  group: example.com
  names: {kind: Gadget, listKind: GadgetList, plural: gadgets, singular: gadget}
  scope: Namespaced
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            properties:
              replicas: {type: integer}
              size: {type: string, default: small}
`

// asRenderedPolicy passes a Gadget only as rendered: with its misspelled field, and without the default.
const asRenderedPolicy = `apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata:
  name: as-rendered
spec:
  matchConstraints:
    resourceRules:
    - {apiGroups: ["example.com"], apiVersions: ["v1"], operations: ["CREATE"], resources: ["gadgets"]}
  validations:
  - expression: "has(object.spec.replica) && !has(object.spec.size)"
    message: the policy saw the Gadget pruned or defaulted
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata:
  name: as-rendered
spec:
  policyName: as-rendered
  validationActions: [Deny]
`

// TestPoliciesReadTheObjectsAsRenderedAfterValidation: validation and the policies share the decoded objects,
// and validation (here Warn, so the policies run) prunes and defaults a custom resource on its own copy: the
// policies read the object as rendered, as docs/policy.md says.
func TestPoliciesReadTheObjectsAsRenderedAfterValidation(t *testing.T) {
	g := NewWithT(t)
	src := &treetest.Map{Files: map[string]string{"base/gadget-crd.yaml": gadgetCRD,
		"policies/as-rendered.yaml": asRenderedPolicy}}
	check, err := newChecker(validate.NewSchemas(), src, ValidationOptions{Mode: ValidationWarn})
	g.Expect(err).NotTo(HaveOccurred())
	gate, err := newPolicyGate(src, PolicyOptions{Paths: []string{"policies"}}, nil)
	g.Expect(err).NotTo(HaveOccurred())

	r := &siteRun{name: "dev"}
	out := "apiVersion: example.com/v1\nkind: Gadget\nmetadata: {name: gz, namespace: shop}\nspec: {replica: 2}\n"
	g.Expect(builder{check: check, policy: gate}.checkOutput(context.Background(), r, []byte(out))).To(Succeed())
	g.Expect(r.checked).To(ContainElement("invalid: Gadget shop/gz: spec.replica: unknown field"))
	g.Expect(r.policy.Summary).To(Equal("1 passed"))
}
