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
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apiserver/pkg/admission"
	"k8s.io/apiserver/pkg/admission/plugin/policy/generic"
	"k8s.io/apiserver/pkg/admission/plugin/policy/matching"
	"k8s.io/apiserver/pkg/admission/plugin/policy/validating"
	"k8s.io/apiserver/pkg/authorization/authorizer"
	"k8s.io/apiserver/pkg/warning"

	"github.com/siteops/siteops/gitops/internal/objects"
)

// User is the user every checked request is made as: policies that read request.userInfo see it, not the
// account that syncs the site.
const User = "siteops"

// auditKey is the audit annotation kube-apiserver records the failures of Audit bindings under.
const auditKey = "validation.policy.admission.k8s.io/validation_failure"

// Check evaluates every binding on every object of a site's rendered output, each object as
// the request that creates it. A binding's paramRef names parameters among the other objects of the
// policies' documents and the objects of the stream. Namespace selectors read the labels of the Namespace
// objects of the stream; an object whose Namespace is not in the stream is checked against a Namespace with
// only its name (and the kubernetes.io/metadata.name label kube-apiserver sets), except by bindings whose
// policy or binding selects namespaces by other labels: those cannot tell, and report the object as Skipped.
// So do they for a namespaced object that names no namespace: its namespace is the one its Application
// deploys to. The error says why the check could not run; denials are in the Report (see
// Report.Err). objs are read, not changed.
func (ps *Policies) Check(ctx context.Context, objs []*unstructured.Unstructured) (Report, error) {
	var r Report
	if ps == nil {
		return r, nil
	}
	r.Warnings = append(r.Warnings, ps.warnings...)
	if len(ps.checks) == 0 {
		return r, nil
	}
	site := newSiteObjects(objs)
	params := &paramStore{fromPolicies: ps.params, site: objs, siteObjects: site,
		byKind: map[schema.GroupVersionKind]*paramInformer{}}
	m := generic.NewPolicyMatcher(matching.NewMatcher(site.namespaces, nil))
	d := validating.NewDispatcher(offlineAuthorizer{}, m)
	o := admission.NewObjectInterfacesFromScheme(runtime.NewScheme())
	for _, obj := range objs {
		req := request{obj: obj, attrs: site.attributes(obj), nsUnknown: site.namespaceUnknown(obj)}
		for i := range ps.checks {
			res, matched, err := ps.checks[i].check(ctx, m, d, o, params, req)
			if err != nil {
				return r, err
			}
			if matched {
				r.add(res)
			}
		}
	}
	return r, nil
}

func (r *Report) add(res Result) {
	switch res.Outcome {
	case Passed:
		r.Passed++
		return
	case Denied:
		r.Denied++
	case Warned:
		r.Warned++
	case Audited:
		r.Audited++
	case Skipped:
		r.Skipped++
	}
	r.Results = append(r.Results, res)
}

// request is the admission request that creates one object of the output.
type request struct {
	obj       *unstructured.Unstructured
	attrs     admission.Attributes
	nsUnknown bool // the labels of the object's namespace are not known (siteObjects.namespaceUnknown)
}

// check dispatches one binding on one object as kube-apiserver's admission plugin does; matched is false when
// the binding does not apply to the object.
func (c *binding) check(ctx context.Context, m generic.PolicyMatcher, d generic.Dispatcher[validating.PolicyHook],
	o admission.ObjectInterfaces, params *paramStore, req request) (Result, bool, error) {
	res := Result{Object: objects.ID(req.obj), Policy: c.policy.Name, Binding: c.binding.Name}
	a, nsUnknown := req.attrs, req.nsUnknown
	if !c.matches(a, o, m, !nsUnknown) {
		return res, false, nil
	}
	if nsUnknown && c.selectsNamespaces() {
		where := "namespace " + a.GetNamespace() + " is not in the site's output"
		if a.GetNamespace() == "" {
			where = "the object names no namespace (it goes to its Application's destination namespace)"
		}
		res.Outcome = Skipped
		res.Message = fmt.Sprintf("ValidatingAdmissionPolicy '%s' with binding '%s' not checked: it selects "+
			"namespaces by label, and %s", c.policy.Name, c.binding.Name, where)
		return res, true, nil
	}
	hook := validating.PolicyHook{Policy: c.policy, Bindings: c.bindings(), Evaluator: c.evaluator}
	if pk := c.policy.Spec.ParamKind; pk != nil {
		inf, err := params.informer(pk.APIVersion, pk.Kind)
		if err != nil {
			hook.ConfigurationError = err
		} else {
			hook.ParamInformer, hook.ParamScope = inf, inf.scope
		}
	}
	rec := &recorder{}
	err := d.Dispatch(warning.WithWarningRecorder(ctx, rec), &recordingAttributes{Attributes: a, rec: rec}, o,
		[]validating.PolicyHook{hook})
	var status *apierrors.StatusError
	switch {
	case errors.As(err, &status):
		res.Outcome, res.Message = Denied, deniedMessage(status)
	case err != nil:
		return res, true, fmt.Errorf("checking %s against ValidatingAdmissionPolicy %s: %w", res.Object,
			c.policy.Name, err)
	case len(rec.warnings) > 0:
		res.Outcome, res.Message = Warned, strings.Join(rec.warnings, "; ")
	case len(rec.audits) > 0:
		res.Outcome, res.Message = Audited, strings.Join(rec.audits, "; ")
	default:
		res.Outcome = Passed
	}
	return res, true, nil
}

func (c *binding) bindings() []*admissionregistrationv1.ValidatingAdmissionPolicyBinding {
	return []*admissionregistrationv1.ValidatingAdmissionPolicyBinding{c.binding}
}

// matches says whether the policy and the binding apply to the request. When the object's namespace is not
// in the output, namespace selectors are left out: the caller decides what an unknown namespace means. A
// configuration error (a selector that does not parse) counts as a match, so that the dispatch reports it
// as kube-apiserver does.
func (c *binding) matches(a admission.Attributes, o admission.ObjectInterfaces, m generic.PolicyMatcher,
	nsKnown bool) bool {
	p, b := c.policy, c.binding
	if !nsKnown {
		p, b = p.DeepCopy(), b.DeepCopy()
		if p.Spec.MatchConstraints != nil {
			p.Spec.MatchConstraints.NamespaceSelector = &metav1.LabelSelector{}
		}
		if b.Spec.MatchResources != nil {
			b.Spec.MatchResources.NamespaceSelector = &metav1.LabelSelector{}
		}
	}
	ok, _, _, err := m.DefinitionMatches(a, o, validating.NewValidatingAdmissionPolicyAccessor(p))
	if err != nil {
		return true
	}
	if !ok {
		return false
	}
	ok, err = m.BindingMatches(a, o, validating.NewValidatingAdmissionPolicyBindingAccessor(b))
	return ok || err != nil
}

// selectsNamespaces says whether the policy or the binding selects namespaces by a label other than the name.
func (c *binding) selectsNamespaces() bool {
	for _, mr := range []*admissionregistrationv1.MatchResources{c.policy.Spec.MatchConstraints,
		c.binding.Spec.MatchResources} {
		if mr == nil || mr.NamespaceSelector == nil {
			continue
		}
		for k := range mr.NamespaceSelector.MatchLabels {
			if k != metadataNameLabel {
				return true
			}
		}
		for _, e := range mr.NamespaceSelector.MatchExpressions {
			if e.Key != metadataNameLabel {
				return true
			}
		}
	}
	return false
}

// deniedMessage is the message of the policy's denial, without the request's resource and name.
func deniedMessage(s *apierrors.StatusError) string {
	if d := s.ErrStatus.Details; d != nil && len(d.Causes) > 0 {
		return d.Causes[len(d.Causes)-1].Message
	}
	return s.Error()
}

// recorder keeps the warnings and audit annotations of one dispatch.
type recorder struct {
	warnings []string
	audits   []string
}

func (r *recorder) AddWarning(_, text string) { r.warnings = append(r.warnings, text) }

// recordingAttributes records the audit annotations the dispatch adds.
type recordingAttributes struct {
	admission.Attributes
	rec *recorder
}

func (a *recordingAttributes) AddAnnotation(key, value string) error {
	if key != auditKey {
		return nil
	}
	var failures []validating.ValidationFailureValue
	if err := json.Unmarshal([]byte(value), &failures); err != nil {
		return fmt.Errorf("reading audit annotation %s: %w", key, err)
	}
	for _, f := range failures {
		a.rec.audits = append(a.rec.audits, fmt.Sprintf("ValidatingAdmissionPolicy '%s' with binding '%s' "+
			"audited: %s", f.Policy, f.Binding, f.Message))
	}
	return nil
}

// offlineAuthorizer answers every check of a policy's authorizer variable with no opinion: the site's
// authorizer is not known offline.
type offlineAuthorizer struct{}

func (offlineAuthorizer) Authorize(context.Context, authorizer.Attributes) (authorizer.Decision, string, error) {
	return authorizer.DecisionNoOpinion, "siteops checks policies without the site's authorizer", nil
}
