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

package validate

import (
	"context"
	"errors"
	"os"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/siteops/siteops/gitops/internal/objects"
)

const deployment = `apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
  namespace: shop
spec:
  %s
  selector:
    matchLabels: {app: web}
  template:
    metadata:
      labels: {app: web}
    spec:
      containers:
      - name: web
        image: nginx:1.27
`

func TestValidateFindsEachProblemWithItsFieldPath(t *testing.T) {
	crd, err := os.ReadFile("testdata/widget-crd.yaml")
	if err != nil {
		t.Fatal(err)
	}
	s := NewSchemas()
	crds, warnings := s.CRDs([][]byte{crd})
	if len(warnings) > 0 {
		t.Fatalf("CRD warnings: %v", warnings)
	}
	widget := "apiVersion: example.com/v1\nkind: Widget\nmetadata: {name: w, namespace: shop}\nspec:\n  %s\n"
	cases := []struct {
		name, yaml string
		want       []string // substrings of the problems, in order; none = valid
	}{
		{"valid deployment", strings.Replace(deployment, "%s", "replicas: 3", 1), nil},
		{"misspelled field", strings.Replace(deployment, "%s", "replica: 3", 1),
			[]string{"Deployment shop/web: spec.replica: unknown field"}},
		{"wrong type", strings.Replace(deployment, "%s", "replicas: three", 1),
			[]string{"Deployment shop/web: spec.replicas: expected numeric"}},
		{"removed API version", "apiVersion: extensions/v1beta1\nkind: Ingress\nmetadata: {name: in, namespace: shop}\n",
			[]string{"Ingress shop/in: apiVersion: extensions/v1beta1 Ingress is not served by Kubernetes 1.37 " +
				"(it serves Ingress as networking.k8s.io/v1)"}},
		{"removed PDB version", "apiVersion: policy/v1beta1\nkind: PodDisruptionBudget\nmetadata: {name: p}\n",
			[]string{"PodDisruptionBudget p: apiVersion: policy/v1beta1 PodDisruptionBudget is not served"}},
		{"valid widget", strings.Replace(widget, "%s", "{minReplicas: 1, maxReplicas: 2}", 1), nil},
		{"CEL rule", strings.Replace(widget, "%s", "{minReplicas: 3, maxReplicas: 2}", 1),
			[]string{"Widget shop/w: spec: Invalid value: minReplicas must not exceed maxReplicas"}},
		{"enum", strings.Replace(widget, "%s", "{size: medium}", 1),
			[]string{"Widget shop/w: spec.size: Unsupported value: \"medium\""}},
		{"unknown CR field", strings.Replace(widget, "%s", "{minReplica: 1}", 1),
			[]string{"Widget shop/w: spec.minReplica: unknown field"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := s.Validate(context.Background(), decode(t, tc.yaml), Options{CRDs: crds})
			if len(tc.want) == 0 {
				if err != nil {
					t.Fatalf("want valid, got %v", err)
				}
				return
			}
			var verr *Error
			if !errors.As(err, &verr) {
				t.Fatalf("want an *Error, got %v", err)
			}
			if len(verr.Problems) != len(tc.want) {
				t.Fatalf("want %d problems, got %q", len(tc.want), verr.Problems)
			}
			for i, w := range tc.want {
				if got := verr.Problems[i].String(); !strings.Contains(got, w) {
					t.Errorf("problem %d = %q, want it to contain %q", i, got, w)
				}
			}
		})
	}
}

func TestValidateWarnsOfKindsNoSchemaDescribes(t *testing.T) {
	s := NewSchemas()
	in := "apiVersion: argoproj.io/v1alpha1\nkind: Rollout\nmetadata: {name: r}\nspec: {anything: 1}\n"
	warnings, err := s.Validate(context.Background(), decode(t, in), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(warnings) != 1 || !strings.Contains(warnings[0], "argoproj.io/v1alpha1 Rollout") {
		t.Fatalf("warnings = %q", warnings)
	}
}

func TestValidateChecksCRsAgainstCRDsOfTheSameOutput(t *testing.T) {
	crd, err := os.ReadFile("testdata/widget-crd.yaml")
	if err != nil {
		t.Fatal(err)
	}
	in := string(crd) + "---\napiVersion: example.com/v1\nkind: Widget\nmetadata: {name: w}\nspec: {size: huge}\n"
	_, err = NewSchemas().Validate(context.Background(), decode(t, in), Options{})
	if err == nil || !strings.Contains(err.Error(), "Widget w: spec.size: Unsupported value") {
		t.Fatalf("err = %v", err)
	}
}

func TestValidateRefusesVersionsItHasNoSchemasOf(t *testing.T) {
	_, err := NewSchemas().Validate(context.Background(), decode(t, ""), Options{KubernetesVersion: "1.20"})
	if err == nil || !strings.Contains(err.Error(), "no schemas of Kubernetes 1.20") {
		t.Fatalf("err = %v", err)
	}
	if _, err := ParseKubernetesVersion("v1.37.2"); err != nil {
		t.Fatal(err)
	}
	if _, err := ParseKubernetesVersion("latest"); err == nil {
		t.Fatal("want an error for latest")
	}
}

// A CRD in the output is checked as kube-apiserver checks it before storing it: here its CEL rule over
// strings of unbounded length costs more than the budget, so the apiserver would refuse it.
func TestValidateRefusesACRDKubeAPIServerWouldRefuse(t *testing.T) {
	crd := `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: things.example.com
spec:
  group: example.com
  names: {kind: Thing, listKind: ThingList, plural: things, singular: thing}
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
              tags:
                type: object
                additionalProperties: {type: string}
                x-kubernetes-validations:
                - rule: "self.all(k, self[k].matches('^[a-z]+$') && self.all(j, self[j] != self[k] || j == k))"
`
	_, err := NewSchemas().Validate(context.Background(), decode(t, crd), Options{})
	if err == nil || !strings.Contains(err.Error(), "CustomResourceDefinition things.example.com: "+
		"spec.validation.openAPIV3Schema.properties[spec].properties[tags].x-kubernetes-validations[0].rule: Forbidden") {
		t.Fatalf("err = %v", err)
	}
}

// decode is the objects of a YAML stream.
func decode(t *testing.T, stream string) []*unstructured.Unstructured {
	t.Helper()
	objs, err := objects.Decode([]byte(stream))
	if err != nil {
		t.Fatal(err)
	}
	return objs
}
