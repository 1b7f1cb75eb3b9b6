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

// Package validate checks rendered objects offline, with kube-apiserver's own libraries: built-in kinds
// against the OpenAPI schemas of a Kubernetes version (as server-side apply parses them: unknown fields,
// wrong types, duplicate list keys, API versions the release does not serve), custom resources against their
// CustomResourceDefinitions (unknown fields, the schema's value rules, list types and the CEL rules of
// x-kubernetes-validations). Semantic rules that kube-apiserver keeps in Go code for built-in kinds are left
// to the site's admission.
package validate

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/siteops/siteops/gitops/internal/objects"
)

// Schemas compiles and keeps the schemas objects are checked against: the built-in types of each Kubernetes
// version, parsed once, and the CRDs, compiled once per content. Make one per process and share it; it is safe
// for concurrent use.
type Schemas struct {
	mu       sync.Mutex
	builtins map[string]*builtinTypes // by Kubernetes minor version, "1.37"
	crds     map[string]*compiledCRD  // by digest of the CRD's content
}

// NewSchemas makes a Schemas with nothing compiled yet.
func NewSchemas() *Schemas {
	return &Schemas{builtins: map[string]*builtinTypes{}, crds: map[string]*compiledCRD{}}
}

// Options says what a rendered output is checked against.
type Options struct {
	// KubernetesVersion is the release whose built-in schemas apply, as "1.37" or "v1.37.2"; "" is
	// DefaultKubernetesVersion.
	KubernetesVersion string
	// CRDs are the custom resource definitions known besides those in the output itself.
	CRDs *CRDs
}

// Problem is one invalid field of one object.
type Problem struct {
	Object string // kind namespace/name, or kind name for a cluster-scoped object
	Field  string // path of the field, e.g. spec.template.spec.containers[0].image
	Reason string
}

func (p Problem) String() string {
	if p.Field == "" {
		return p.Object + ": " + p.Reason
	}
	return p.Object + ": " + p.Field + ": " + p.Reason
}

// Error lists the problems of an output that does not validate.
type Error struct {
	Problems []Problem
}

// maxShown is how many problems Error's message spells out.
const maxShown = 5

func (e *Error) Error() string {
	var b strings.Builder
	for i, p := range e.Problems {
		if i == maxShown {
			fmt.Fprintf(&b, "; and %d more", len(e.Problems)-maxShown)
			break
		}
		if i > 0 {
			b.WriteString("; ")
		}
		b.WriteString(p.String())
	}
	return "invalid objects: " + b.String()
}

// Validate checks every object of a rendered output. It leaves objs as they are: a custom resource is pruned
// and defaulted on a copy, so that what comes after (the policy check) reads the objects as rendered. The
// error is an *Error when objects are invalid, or says why the check could not run (an unknown Kubernetes
// version). warnings name the custom resources that no CRD describes: they are not checked.
func (s *Schemas) Validate(ctx context.Context, objs []*unstructured.Unstructured, o Options) (warnings []string,
	err error) {
	bt, err := s.builtinTypes(o.KubernetesVersion)
	if err != nil {
		return nil, err
	}
	own, problems := s.ownCRDs(ctx, objs)
	var missing []string
	for _, obj := range objs {
		gvk := obj.GroupVersionKind()
		id := objects.ID(obj)
		if v := own.lookup(gvk); v != nil {
			problems = append(problems, v.validate(ctx, id, obj.Object)...)
			continue
		}
		if v := o.CRDs.lookup(gvk); v != nil {
			problems = append(problems, v.validate(ctx, id, obj.Object)...)
			continue
		}
		if p, known := bt.validate(id, obj); known {
			problems = append(problems, p...)
			continue
		}
		missing = append(missing, gvk.GroupVersion().String()+" "+gvk.Kind)
	}
	if len(missing) > 0 {
		slices.Sort(missing)
		warnings = append(warnings, "not validated, no CRD describes them: "+strings.Join(slices.Compact(missing), ", "))
	}
	if len(problems) > 0 {
		return warnings, &Error{Problems: problems}
	}
	return warnings, nil
}
