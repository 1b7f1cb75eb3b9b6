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

package policy

import (
	"context"
	"os"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/siteops/siteops/gitops/internal/objects"
)

const prodNS = `apiVersion: v1
kind: Namespace
metadata:
  name: shop
  labels:
    env: prod
`

const devNS = `apiVersion: v1
kind: Namespace
metadata:
  name: shop
  labels:
    env: dev
`

func deployment(name, image string) string {
	return `apiVersion: apps/v1
kind: Deployment
metadata:
  name: ` + name + `
  namespace: shop
spec:
  selector:
    matchLabels: {app: web}
  template:
    metadata:
      labels: {app: web}
    spec:
      containers:
      - name: web
        image: ` + image + `
`
}

func load(t *testing.T, extra ...string) *Policies {
	t.Helper()
	b, err := os.ReadFile("testdata/no-latest.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var docs [][]byte
	for _, d := range append(strings.Split(string(b), "\n---\n"), extra...) {
		docs = append(docs, []byte(d))
	}
	ps, err := Load(docs)
	if err != nil {
		t.Fatal(err)
	}
	return ps
}

// decode is the objects of a YAML stream of docs.
func decode(t *testing.T, docs ...string) []*unstructured.Unstructured {
	t.Helper()
	objs, err := objects.Decode([]byte(strings.Join(docs, "---\n")))
	if err != nil {
		t.Fatal(err)
	}
	return objs
}

func TestDenyBindingRefusesLatestInSelectedNamespaces(t *testing.T) {
	ps := load(t)
	ctx := context.Background()
	r, err := ps.Check(ctx, decode(t, prodNS, deployment("web", "nginx:latest"), deployment("api", "nginx:1.27")))
	if err != nil {
		t.Fatal(err)
	}
	if r.Passed != 1 || r.Denied != 1 || len(r.Results) != 1 {
		t.Fatalf("want 1 passed and 1 denied, got %+v", r)
	}
	want := "Deployment shop/web: ValidatingAdmissionPolicy 'no-latest' with binding 'no-latest-prod' denied " +
		"request: image nginx:latest is not pinned: :latest is refused"
	if err := r.Err(); err == nil || err.Error() != "denied by policy: "+want {
		t.Fatalf("error %v, want %q", err, want)
	}
	if r.Summary() != "1 passed, 1 denied" {
		t.Fatalf("summary %q", r.Summary())
	}

	r, err = ps.Check(ctx, decode(t, devNS, deployment("web", "nginx:latest")))
	if err != nil {
		t.Fatal(err)
	}
	if r.Err() != nil || r.Summary() != "none matched" {
		t.Fatalf("a dev namespace is not selected: got %s, %v", r.Summary(), r.Err())
	}
}

func TestWarnAndAuditBindingsAdmit(t *testing.T) {
	ps := load(t, `apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata:
  name: no-latest-warn
spec:
  policyName: no-latest
  validationActions: [Warn]
`, `apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata:
  name: no-latest-audit
spec:
  policyName: no-latest
  validationActions: [Audit]
`)
	r, err := ps.Check(context.Background(), decode(t, devNS, deployment("web", "nginx:latest")))
	if err != nil {
		t.Fatal(err)
	}
	if r.Err() != nil || r.Summary() != "0 passed, 1 warned, 1 audited" {
		t.Fatalf("got %s, %v", r.Summary(), r.Err())
	}
	var got []string
	for _, res := range r.Results {
		got = append(got, string(res.Outcome)+" "+res.Message)
	}
	want := []string{
		"audited ValidatingAdmissionPolicy 'no-latest' with binding 'no-latest-audit' audited: image nginx:latest " +
			"is not pinned: :latest is refused",
		"warned Validation failed for ValidatingAdmissionPolicy 'no-latest' with binding 'no-latest-warn': " +
			"image nginx:latest is not pinned: :latest is refused",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("results:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

func TestUnrenderedNamespaceSkipsLabelSelectors(t *testing.T) {
	ps := load(t, `apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata:
  name: no-latest-shop
spec:
  policyName: no-latest
  validationActions: [Deny]
  matchResources:
    namespaceSelector:
      matchLabels:
        kubernetes.io/metadata.name: shop
`)
	r, err := ps.Check(context.Background(), decode(t, deployment("web", "nginx:latest")))
	if err != nil {
		t.Fatal(err)
	}
	if r.Denied != 1 || r.Skipped != 1 {
		t.Fatalf("want the name selector denied and the env selector skipped, got %+v", r)
	}
	for _, res := range r.Results {
		if res.Outcome == Skipped && !strings.Contains(res.Message, "namespace shop is not in the site's output") {
			t.Fatalf("skip message %q", res.Message)
		}
	}
}

func TestLoadReportsBindingsWithoutTheirPolicy(t *testing.T) {
	ps, err := Load([][]byte{[]byte(`apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata:
  name: orphan
spec:
  policyName: missing
  validationActions: [Deny]
`), []byte(`apiVersion: v1
kind: ConfigMap
metadata:
  name: a-parameter
`)})
	if err != nil {
		t.Fatal(err)
	}
	if ps.Len() != 0 || len(ps.warnings) != 1 ||
		!strings.Contains(ps.warnings[0], `names no ValidatingAdmissionPolicy "missing"`) {
		t.Fatalf("got %d bindings, warnings %q", ps.Len(), ps.warnings)
	}
	if _, err := Load([][]byte{[]byte("apiVersion: admissionregistration.k8s.io/v1\nkind: ValidatingAdmissionPolicy\n" +
		"metadata: {name: p}\nspec: {validationz: []}\n")}); err == nil || !strings.Contains(err.Error(), "validationz") {
		t.Fatalf("an unknown field: %v", err)
	}
}

func TestCompileErrorFollowsFailurePolicy(t *testing.T) {
	policy := func(fp string) string {
		return `apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata: {name: broken}
spec:
  failurePolicy: ` + fp + `
  matchConstraints:
    resourceRules:
    - {apiGroups: ["apps"], apiVersions: ["v1"], operations: ["CREATE"], resources: ["deployments"]}
  validations:
  - expression: "object.spec.replicas >"
`
	}
	binding := `apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata: {name: broken}
spec: {policyName: broken, validationActions: [Deny]}
`
	for fp, denied := range map[string]int{"Fail": 1, "Ignore": 0} {
		ps, err := Load([][]byte{[]byte(policy(fp)), []byte(binding)})
		if err != nil {
			t.Fatal(err)
		}
		r, err := ps.Check(context.Background(), decode(t, deployment("web", "nginx:1.27")))
		if err != nil {
			t.Fatal(err)
		}
		if r.Denied != denied {
			t.Errorf("failurePolicy %s: %d denied, want %d (%+v)", fp, r.Denied, denied, r.Results)
		}
	}
}

func TestObjectWithoutNamespaceSkipsLabelSelectors(t *testing.T) {
	ps := load(t)
	noNamespace := strings.Replace(deployment("web", "nginx:latest"), "  namespace: shop\n", "", 1)
	r, err := ps.Check(context.Background(), decode(t, prodNS, noNamespace))
	if err != nil {
		t.Fatal(err)
	}
	if r.Skipped != 1 || r.Err() != nil {
		t.Fatalf("a namespaced object without a namespace may go anywhere: want it skipped, got %+v", r)
	}
	if !strings.Contains(r.Results[0].Message, "names no namespace") {
		t.Fatalf("message %q", r.Results[0].Message)
	}
}

// maxReplicas limits a Deployment's replicas to its parameter's data.max, a ConfigMap.
const maxReplicas = `apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata: {name: max-replicas}
spec:
  paramKind: {apiVersion: v1, kind: ConfigMap}
  matchConstraints:
    resourceRules:
    - {apiGroups: ["apps"], apiVersions: ["v1"], operations: ["CREATE"], resources: ["deployments"]}
  validations:
  - expression: "object.spec.replicas <= int(params.data.max)"
    messageExpression: "'at most ' + params.data.max + ' replicas'"
`

func maxReplicasBinding(name, param string) string {
	return `apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata: {name: ` + name + `}
spec:
  policyName: max-replicas
  validationActions: [Deny]
  paramRef: {name: ` + param + `, namespace: limits, parameterNotFoundAction: Deny}
`
}

func TestParamRefReadsParametersFromThePoliciesAndTheOutput(t *testing.T) {
	limits := func(name, most string) string {
		return "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: " + name + ", namespace: limits}\ndata: {max: \"" +
			most + "\"}\n"
	}
	ps, err := Load([][]byte{[]byte(maxReplicas), []byte(maxReplicasBinding("from-policies", "policy-limits")),
		[]byte(maxReplicasBinding("from-output", "site-limits")), []byte(maxReplicasBinding("missing", "nowhere")),
		[]byte(limits("policy-limits", "3"))})
	if err != nil {
		t.Fatal(err)
	}
	web := strings.Replace(deployment("web", "nginx:1.27"), "spec:\n", "spec:\n  replicas: 5\n", 1)
	r, err := ps.Check(context.Background(), decode(t, devNS, web, limits("site-limits", "10")))
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, res := range r.Results {
		got[res.Binding] = res.Message
	}
	if r.Passed != 1 || r.Denied != 2 {
		t.Fatalf("want from-output passed, the others denied: got %s %v", r.Summary(), got)
	}
	if !strings.HasSuffix(got["from-policies"], "denied request: at most 3 replicas") {
		t.Errorf("from-policies: %q", got["from-policies"])
	}
	if !strings.Contains(got["missing"], "no params found for policy binding with `Deny` parameterNotFoundAction") {
		t.Errorf("missing: %q", got["missing"])
	}
}
