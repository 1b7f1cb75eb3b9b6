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

	"github.com/siteops/siteops/gitops/guard"
	"github.com/siteops/siteops/gitops/internal/objects"
	"github.com/siteops/siteops/gitops/internal/tree"
	"github.com/siteops/siteops/gitops/render"
	"github.com/siteops/siteops/gitops/validate"
)

// benchPolicies are three policies, bound with each action, that match every object of a bench site: no
// :latest image (Deny, the 10 Deployments), at most 5 replicas (Warn, the Deployments), at most 50 keys in a
// ConfigMap (Audit, the 10 ConfigMaps).
func benchPolicies() string {
	return noLatestPolicy + policyBinding("no-latest-all", "Deny", "") + benchMorePolicies
}

// benchMorePolicies are max-replicas and small-configmaps, with their bindings.
const benchMorePolicies = `---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata:
  name: max-replicas
spec:
  matchConstraints:
    resourceRules:
    - {apiGroups: ["apps"], apiVersions: ["v1"], operations: ["CREATE", "UPDATE"], resources: ["deployments"]}
  validations:
  - expression: "!has(object.spec.replicas) || object.spec.replicas <= 5"
    messageExpression: "'at most 5 replicas, not ' + string(object.spec.replicas)"
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata:
  name: max-replicas
spec:
  policyName: max-replicas
  validationActions: [Warn]
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata:
  name: small-configmaps
spec:
  matchConstraints:
    resourceRules:
    - {apiGroups: [""], apiVersions: ["v1"], operations: ["CREATE", "UPDATE"], resources: ["configmaps"]}
  validations:
  - expression: "!has(object.data) || size(object.data) <= 50"
    message: at most 50 keys
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata:
  name: small-configmaps
spec:
  policyName: small-configmaps
  validationActions: [Audit]
`

// benchPolicyTree is benchRepo with benchPolicies in policies/.
func benchPolicyTree(b *testing.B) tree.FS {
	m, _ := benchRepo()
	m.Files["policies/bench.yaml"] = benchPolicies()
	return onDisk(b, m)
}

// BenchmarkPolicySite is the policy check alone of the output BenchmarkRenderSite builds, the policies
// compiled once as a Sync compiles them, and the output decoded once as validation decodes it for both.
func BenchmarkPolicySite(b *testing.B) {
	tree := benchPolicyTree(b)
	gate, err := newPolicyGate(tree, PolicyOptions{Paths: []string{"policies"}}, nil)
	if err != nil {
		b.Fatal(err)
	}
	in, err := guard.Site(tree, "overlays/site042")
	if err != nil {
		b.Fatal(err)
	}
	out, err := render.Build(in, "overlays/site042", render.Options{})
	if err != nil {
		b.Fatal(err)
	}
	objs, err := objects.Decode(out)
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	for b.Loop() {
		res, _, err := gate.check(ctx, objs)
		if err != nil {
			b.Fatal(err)
		}
		if res.Summary != "30 passed" {
			b.Fatalf("summary %q, want every binding to pass on every object", res.Summary)
		}
	}
}

// BenchmarkRenderValidateAndPolicySite is BenchmarkRenderAndValidateSite plus the policy check: a site's
// whole cost on the render path, beside BenchmarkRenderSite.
func BenchmarkRenderValidateAndPolicySite(b *testing.B) {
	tree := benchPolicyTree(b)
	check, err := newChecker(validate.NewSchemas(), tree, ValidationOptions{})
	if err != nil {
		b.Fatal(err)
	}
	gate, err := newPolicyGate(tree, PolicyOptions{Paths: []string{"policies"}}, nil)
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	for b.Loop() {
		in, err := guard.Site(tree, "overlays/site042")
		if err != nil {
			b.Fatal(err)
		}
		out, err := render.Build(in, "overlays/site042", render.Options{})
		if err != nil {
			b.Fatal(err)
		}
		if err := (builder{check: check, policy: gate}).checkOutput(ctx, &siteRun{name: "site042"}, out); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkLoadPolicies is what a Sync pays once to read and compile the policies.
func BenchmarkLoadPolicies(b *testing.B) {
	tree := benchPolicyTree(b)
	for b.Loop() {
		if _, err := newPolicyGate(tree, PolicyOptions{Paths: []string{"policies"}}, nil); err != nil {
			b.Fatal(err)
		}
	}
}
