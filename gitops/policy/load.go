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

// Package policy checks rendered objects against ValidatingAdmissionPolicies and their bindings, in process,
// with the admission plugin kube-apiserver runs (k8s.io/apiserver/pkg/admission/plugin/policy/validating):
// the same matching (matchConstraints, matchResources, namespace and object selectors, matchConditions), the
// same CEL environment and cost limits, messageExpression, and the validationActions Deny, Warn and Audit.
// Each object is checked as the CREATE request that a first sync sends.
package policy

import (
	"bytes"
	"fmt"
	"slices"
	"strings"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apiserver/pkg/admission/plugin/policy/validating"
	"sigs.k8s.io/yaml"

	"github.com/siteops/siteops/gitops/internal/objects"
)

// Policies are ValidatingAdmissionPolicies with their bindings, compiled once; safe for concurrent use.
type Policies struct {
	checks   []binding
	params   []*unstructured.Unstructured // the other objects of the documents: what paramRefs can name
	warnings []string                     // of bindings that name no policy
}

// binding is one binding with the policy it names and the policy's compiled validator.
type binding struct {
	policy    *admissionregistrationv1.ValidatingAdmissionPolicy
	binding   *admissionregistrationv1.ValidatingAdmissionPolicyBinding
	evaluator validating.Validator
}

// Load reads the ValidatingAdmissionPolicies and ValidatingAdmissionPolicyBindings of YAML documents, applies
// the defaults kube-apiserver applies, and compiles the policies; the other objects are the parameters a
// binding's paramRef can name (with the site's own objects). A document that does not decode, or a policy or
// binding without a name, is an error. A binding that names no policy does nothing, as at admission: it
// comes back as a warning.
func Load(docs [][]byte) (*Policies, error) {
	byName := map[string]*admissionregistrationv1.ValidatingAdmissionPolicy{}
	var bindings []*admissionregistrationv1.ValidatingAdmissionPolicyBinding
	ps := &Policies{}
	for _, doc := range docs {
		var tm metav1.TypeMeta
		if err := yaml.Unmarshal(doc, &tm); err != nil {
			return nil, fmt.Errorf("reading a policy document: %w", err)
		}
		if tm.APIVersion == "" || tm.Kind == "" {
			continue
		}
		isPolicy := tm.APIVersion == admissionregistrationv1.SchemeGroupVersion.String() &&
			(tm.Kind == "ValidatingAdmissionPolicy" || tm.Kind == "ValidatingAdmissionPolicyBinding")
		if !isPolicy {
			objs, err := objects.Decode(doc)
			if err != nil {
				return nil, fmt.Errorf("reading %s %s: %w", tm.Kind, nameOf(doc), err)
			}
			ps.params = append(ps.params, objs...)
			continue
		}
		switch tm.Kind {
		case "ValidatingAdmissionPolicy":
			p := &admissionregistrationv1.ValidatingAdmissionPolicy{}
			if err := yaml.UnmarshalStrict(doc, p); err != nil {
				return nil, fmt.Errorf("reading ValidatingAdmissionPolicy %s: %w", nameOf(doc), err)
			}
			if p.Name == "" {
				return nil, fmt.Errorf("a ValidatingAdmissionPolicy has no name")
			}
			if _, dup := byName[p.Name]; dup {
				return nil, fmt.Errorf("ValidatingAdmissionPolicy %s is defined twice", p.Name)
			}
			defaultPolicy(p)
			byName[p.Name] = p
		case "ValidatingAdmissionPolicyBinding":
			b := &admissionregistrationv1.ValidatingAdmissionPolicyBinding{}
			if err := yaml.UnmarshalStrict(doc, b); err != nil {
				return nil, fmt.Errorf("reading ValidatingAdmissionPolicyBinding %s: %w", nameOf(doc), err)
			}
			if b.Name == "" {
				return nil, fmt.Errorf("a ValidatingAdmissionPolicyBinding has no name")
			}
			if b.Spec.MatchResources != nil {
				defaultMatchResources(b.Spec.MatchResources)
			}
			bindings = append(bindings, b)
		}
	}
	slices.SortFunc(bindings, func(a, b *admissionregistrationv1.ValidatingAdmissionPolicyBinding) int {
		return strings.Compare(a.Name, b.Name)
	})
	c := newCompiler()
	compiled := map[string]validating.Validator{}
	for _, b := range bindings {
		p := byName[b.Spec.PolicyName]
		if p == nil {
			ps.warnings = append(ps.warnings, fmt.Sprintf("ValidatingAdmissionPolicyBinding %s names no "+
				"ValidatingAdmissionPolicy %q: it checks nothing", b.Name, b.Spec.PolicyName))
			continue
		}
		v, ok := compiled[p.Name]
		if !ok {
			v = c.compile(p)
			compiled[p.Name] = v
		}
		ps.checks = append(ps.checks, binding{policy: p, binding: b, evaluator: v})
	}
	return ps, nil
}

// Len is the number of bindings that check objects.
func (ps *Policies) Len() int {
	if ps == nil {
		return 0
	}
	return len(ps.checks)
}

// defaultPolicy applies the defaults kube-apiserver applies to a stored ValidatingAdmissionPolicy.
func defaultPolicy(p *admissionregistrationv1.ValidatingAdmissionPolicy) {
	if p.Spec.FailurePolicy == nil {
		fail := admissionregistrationv1.Fail
		p.Spec.FailurePolicy = &fail
	}
	if p.Spec.MatchConstraints != nil {
		defaultMatchResources(p.Spec.MatchConstraints)
	}
}

// defaultMatchResources applies the defaults of MatchResources: Equivalent matching, selectors that select
// everything, rules of every scope.
func defaultMatchResources(m *admissionregistrationv1.MatchResources) {
	if m.MatchPolicy == nil {
		equivalent := admissionregistrationv1.Equivalent
		m.MatchPolicy = &equivalent
	}
	if m.NamespaceSelector == nil {
		m.NamespaceSelector = &metav1.LabelSelector{}
	}
	if m.ObjectSelector == nil {
		m.ObjectSelector = &metav1.LabelSelector{}
	}
	for _, rules := range [][]admissionregistrationv1.NamedRuleWithOperations{m.ResourceRules, m.ExcludeResourceRules} {
		for i := range rules {
			if rules[i].Scope == nil {
				all := admissionregistrationv1.AllScopes
				rules[i].Scope = &all
			}
		}
	}
}

// nameOf is the metadata.name of a document, for messages; "" when it has none.
func nameOf(doc []byte) string {
	var m struct {
		Metadata struct {
			Name string `json:"name"`
		} `json:"metadata"`
	}
	_ = yaml.Unmarshal(bytes.TrimSpace(doc), &m)
	return m.Metadata.Name
}
