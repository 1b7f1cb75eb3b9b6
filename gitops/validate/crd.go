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
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"

	"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apiextensionsvalidation "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/validation"
	structuralschema "k8s.io/apiextensions-apiserver/pkg/apiserver/schema"
	"k8s.io/apiextensions-apiserver/pkg/apiserver/schema/cel"
	"k8s.io/apiextensions-apiserver/pkg/apiserver/schema/defaulting"
	"k8s.io/apiextensions-apiserver/pkg/apiserver/schema/listtype"
	"k8s.io/apiextensions-apiserver/pkg/apiserver/schema/objectmeta"
	"k8s.io/apiextensions-apiserver/pkg/apiserver/schema/pruning"
	apiservervalidation "k8s.io/apiextensions-apiserver/pkg/apiserver/validation"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"
	celconfig "k8s.io/apiserver/pkg/apis/cel"
	"sigs.k8s.io/yaml"

	"github.com/siteops/siteops/gitops/internal/objects"
)

// maxCachedCRDs bounds the compiled CRDs a Schemas keeps; past it the cache starts again.
const maxCachedCRDs = 1024

// CRDs are custom resource definitions, compiled, by the kinds they serve.
type CRDs struct {
	versions map[schema.GroupVersionKind]*crdVersion
}

// compiledCRD is one CRD's served versions.
type compiledCRD struct {
	versions map[schema.GroupVersionKind]*crdVersion
}

// crdVersion is what one served version of a CRD checks.
type crdVersion struct {
	structural *structuralschema.Structural
	schema     apiservervalidation.SchemaValidator
	cel        *cel.Validator // nil without x-kubernetes-validations
}

func (c *CRDs) lookup(gvk schema.GroupVersionKind) *crdVersion {
	if c == nil {
		return nil
	}
	return c.versions[gvk]
}

// CRDs compiles the CustomResourceDefinitions among the YAML documents (other documents are ignored), each
// CRD once per content for the life of s. A CRD that does not compile is left out, with a warning.
func (s *Schemas) CRDs(docs [][]byte) (*CRDs, []string) {
	out := &CRDs{versions: map[schema.GroupVersionKind]*crdVersion{}}
	var warnings []string
	for _, doc := range docs {
		if !bytes.Contains(doc, []byte("CustomResourceDefinition")) {
			continue
		}
		var crd apiextensionsv1.CustomResourceDefinition
		if err := yaml.Unmarshal(doc, &crd); err != nil || crd.Kind != "CustomResourceDefinition" ||
			crd.APIVersion != apiextensionsv1.SchemeGroupVersion.String() {
			continue
		}
		c, err := s.compile(&crd)
		if err != nil {
			warnings = append(warnings, err.Error())
			continue
		}
		for gvk, v := range c.versions {
			out.versions[gvk] = v
		}
	}
	return out, warnings
}

// ownCRDs compiles the CRDs among a rendered output's objects; a CRD that does not compile is a problem of
// that object.
func (s *Schemas) ownCRDs(ctx context.Context, objs []*unstructured.Unstructured) (*CRDs, []Problem) {
	out := &CRDs{versions: map[schema.GroupVersionKind]*crdVersion{}}
	var problems []Problem
	for _, obj := range objs {
		if obj.GroupVersionKind() != apiextensionsv1.SchemeGroupVersion.WithKind("CustomResourceDefinition") {
			continue
		}
		var crd apiextensionsv1.CustomResourceDefinition
		if err := runtime.DefaultUnstructuredConverter.FromUnstructured(obj.Object, &crd); err != nil {
			continue // the built-in schema reports what is wrong with it
		}
		if errs := validateCRD(ctx, &crd); len(errs) > 0 {
			for _, e := range errs {
				problems = append(problems, fieldProblem(objects.ID(obj), e))
			}
			continue
		}
		c, err := s.compile(&crd)
		if err != nil {
			problems = append(problems, Problem{Object: objects.ID(obj), Field: "spec.versions", Reason: err.Error()})
			continue
		}
		for gvk, v := range c.versions {
			out.versions[gvk] = v
		}
	}
	return out, problems
}

// validateCRD checks a CRD as kube-apiserver does before it stores one: defaults, then the CRD's own rules,
// among them the estimated cost of its CEL rules.
func validateCRD(ctx context.Context, crd *apiextensionsv1.CustomResourceDefinition) field.ErrorList {
	crd = crd.DeepCopy()
	apiextensionsv1.SetObjectDefaults_CustomResourceDefinition(crd)
	var internal apiextensions.CustomResourceDefinition
	if err := apiextensionsv1.Convert_v1_CustomResourceDefinition_To_apiextensions_CustomResourceDefinition(crd,
		&internal, nil); err != nil {
		return field.ErrorList{field.Invalid(field.NewPath("spec"), crd.Name, err.Error())}
	}
	return apiextensionsvalidation.ValidateCustomResourceDefinition(ctx, &internal)
}

// compile compiles the schemas of crd's served versions, or returns those compiled for the same content.
func (s *Schemas) compile(crd *apiextensionsv1.CustomResourceDefinition) (*compiledCRD, error) {
	j, err := yaml.Marshal(crd.Spec)
	if err != nil {
		return nil, fmt.Errorf("CRD %s: %w", crd.Name, err)
	}
	sum := sha256.Sum256(j)
	key := hex.EncodeToString(sum[:])
	s.mu.Lock()
	c, ok := s.crds[key]
	s.mu.Unlock()
	if ok {
		return c, nil
	}
	c = &compiledCRD{versions: map[schema.GroupVersionKind]*crdVersion{}}
	for _, v := range crd.Spec.Versions {
		if !v.Served || v.Schema == nil || v.Schema.OpenAPIV3Schema == nil {
			continue
		}
		cv, err := compileVersion(v.Schema.OpenAPIV3Schema)
		if err != nil {
			return nil, fmt.Errorf("CRD %s version %s: %w", crd.Name, v.Name, err)
		}
		c.versions[schema.GroupVersionKind{Group: crd.Spec.Group, Version: v.Name, Kind: crd.Spec.Names.Kind}] = cv
	}
	s.mu.Lock()
	if len(s.crds) >= maxCachedCRDs {
		clear(s.crds)
	}
	s.crds[key] = c
	s.mu.Unlock()
	return c, nil
}

// compileVersion builds the validators kube-apiserver builds for a CRD version: the structural schema, the
// OpenAPI value validator and the CEL rules.
func compileVersion(v1 *apiextensionsv1.JSONSchemaProps) (*crdVersion, error) {
	var internal apiextensions.JSONSchemaProps
	if err := apiextensionsv1.Convert_v1_JSONSchemaProps_To_apiextensions_JSONSchemaProps(v1, &internal, nil); err != nil {
		return nil, err
	}
	ss, err := structuralschema.NewStructural(&internal)
	if err != nil {
		return nil, fmt.Errorf("not a structural schema: %w", err)
	}
	if errs := structuralschema.ValidateStructural(nil, ss); len(errs) > 0 {
		return nil, fmt.Errorf("not a structural schema: %w", errs.ToAggregate())
	}
	sv, _, err := apiservervalidation.NewSchemaValidator(&internal)
	if err != nil {
		return nil, err
	}
	return &crdVersion{structural: ss, schema: sv, cel: cel.NewValidator(ss, true, celconfig.PerCallLimit)}, nil
}

// validate checks a custom resource as kube-apiserver does on create: unknown fields (pruning), defaults,
// the schema's value rules, embedded objects' metadata, list types, then the CEL rules. It prunes and
// defaults a copy: obj stays as rendered.
func (v *crdVersion) validate(ctx context.Context, id string, obj map[string]any) []Problem {
	obj = runtime.DeepCopyJSON(obj)
	var problems []Problem
	unknown := pruning.PruneWithOptions(obj, v.structural, true, structuralschema.UnknownFieldPathOptions{
		TrackUnknownFieldPaths: true,
	})
	for _, p := range unknown {
		problems = append(problems, Problem{Object: id, Field: p, Reason: "unknown field"})
	}
	defaulting.Default(obj, v.structural)
	errs := apiservervalidation.ValidateCustomResource(nil, obj, v.schema)
	errs = append(errs, objectmeta.Validate(ctx, nil, obj, v.structural, true)...)
	errs = append(errs, listtype.ValidateListSetsAndMaps(nil, v.structural, obj)...)
	if v.cel != nil {
		celErrs, _ := v.cel.Validate(ctx, nil, v.structural, obj, nil, celconfig.RuntimeCELCostBudget)
		errs = append(errs, celErrs...)
	}
	for _, e := range errs {
		problems = append(problems, fieldProblem(id, e))
	}
	return problems
}

// fieldProblem turns kube-apiserver's field error into a Problem.
func fieldProblem(id string, e *field.Error) Problem {
	return Problem{Object: id, Field: e.Field, Reason: e.ErrorBody()}
}
