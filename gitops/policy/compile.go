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
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	"k8s.io/apiserver/pkg/admission/plugin/cel"
	"k8s.io/apiserver/pkg/admission/plugin/policy/validating"
	"k8s.io/apiserver/pkg/admission/plugin/webhook/matchconditions"
	"k8s.io/apiserver/pkg/cel/environment"
)

// compiler compiles policies in the CEL environment kube-apiserver's admission plugin uses: the base
// environment of the default compatibility version, with strict cost limits.
type compiler struct {
	env *environment.EnvSet
}

func newCompiler() *compiler {
	return &compiler{env: environment.MustBaseEnvSet(environment.DefaultCompatibilityVersion())}
}

// compile assembles a policy's validator from its variables, matchConditions, validations, audit annotations
// and message expressions, with the plugin's own compiler and validator, as the plugin compiles a policy it
// reads from the API (validating.compilePolicy, which is not exported). A compile error stays in the
// validator: evaluating it applies the policy's failurePolicy, as at admission.
func (c *compiler) compile(p *admissionregistrationv1.ValidatingAdmissionPolicy) validating.Validator {
	hasParams := p.Spec.ParamKind != nil
	optional := cel.OptionalVariableDeclarations{HasParams: hasParams, HasAuthorizer: true}
	forMessages := cel.OptionalVariableDeclarations{HasParams: hasParams, HasAuthorizer: false}
	fc, err := cel.NewCompositedCompiler(c.env)
	if err != nil {
		return validating.NewValidator(nil, nil, nil, nil, p.Spec.FailurePolicy, err)
	}
	variables := make([]cel.NamedExpressionAccessor, len(p.Spec.Variables))
	for i, v := range p.Spec.Variables {
		variables[i] = &validating.Variable{Name: v.Name, Expression: v.Expression}
	}
	fc.CompileAndStoreVariables(variables, optional, environment.StoredExpressions)
	var matcher matchconditions.Matcher
	if n := len(p.Spec.MatchConditions); n > 0 {
		conds := make([]cel.ExpressionAccessor, n)
		for i := range p.Spec.MatchConditions {
			conds[i] = (*matchconditions.MatchCondition)(&p.Spec.MatchConditions[i])
		}
		matcher = matchconditions.NewMatcher(fc.CompileCondition(conds, optional, environment.StoredExpressions),
			p.Spec.FailurePolicy, "policy", "validate", p.Name)
	}
	validations := make([]cel.ExpressionAccessor, len(p.Spec.Validations))
	messages := make([]cel.ExpressionAccessor, len(p.Spec.Validations))
	for i, v := range p.Spec.Validations {
		validations[i] = &validating.ValidationCondition{Expression: v.Expression, Message: v.Message, Reason: v.Reason}
		if v.MessageExpression != "" {
			messages[i] = &validating.MessageExpressionCondition{MessageExpression: v.MessageExpression}
		}
	}
	audits := make([]cel.ExpressionAccessor, len(p.Spec.AuditAnnotations))
	for i, a := range p.Spec.AuditAnnotations {
		audits[i] = &validating.AuditAnnotationCondition{Key: a.Key, ValueExpression: a.ValueExpression}
	}
	return validating.NewValidator(
		fc.CompileCondition(validations, optional, environment.StoredExpressions),
		matcher,
		fc.CompileCondition(audits, optional, environment.StoredExpressions),
		fc.CompileCondition(messages, forMessages, environment.StoredExpressions),
		p.Spec.FailurePolicy,
		nil,
	)
}
