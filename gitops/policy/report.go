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
	"fmt"
	"strings"
)

// Outcome is what one binding made of one object it matched.
type Outcome string

// The outcomes, from the binding's validationActions.
const (
	Passed  Outcome = "passed"
	Denied  Outcome = "denied"  // a Deny binding refused the object: the site would reject it
	Warned  Outcome = "warned"  // a Warn binding: the site would admit it with a warning
	Audited Outcome = "audited" // an Audit binding: the site would admit it and record the failure in its audit log
	Skipped Outcome = "skipped" // the labels of the object's namespace are not known (the message says why)
)

// Result is a binding's verdict on one object, for every outcome but Passed.
type Result struct {
	Object  string // kind namespace/name, or kind name
	Policy  string
	Binding string
	Outcome Outcome
	// Message is kube-apiserver's, e.g. "ValidatingAdmissionPolicy 'no-latest' with binding 'prod' denied
	// request: ...", built from the policy's message or messageExpression.
	Message string
}

func (r Result) String() string { return r.Object + ": " + r.Message }

// Report counts the verdicts of every binding on every object it matched, and lists those that did not pass.
type Report struct {
	Passed, Denied, Warned, Audited, Skipped int
	Results                                  []Result
	// Warnings are about the policies themselves: bindings without their policy.
	Warnings []string
}

// Summary is the counts as a phrase, "4 passed, 1 warned"; "none matched" when no binding matched an object.
func (r Report) Summary() string {
	var parts []string
	for _, c := range []struct {
		n    int
		word Outcome
	}{{r.Passed, Passed}, {r.Denied, Denied}, {r.Warned, Warned}, {r.Audited, Audited}, {r.Skipped, Skipped}} {
		if c.n > 0 || (c.word == Passed && r.total() > 0) {
			parts = append(parts, fmt.Sprintf("%d %s", c.n, c.word))
		}
	}
	if len(parts) == 0 {
		return "none matched"
	}
	return strings.Join(parts, ", ")
}

func (r Report) total() int { return r.Passed + r.Denied + r.Warned + r.Audited + r.Skipped }

// Err is a *DeniedError listing the denied objects, or nil when a Deny binding refused none.
func (r Report) Err() error {
	var denied []Result
	for _, res := range r.Results {
		if res.Outcome == Denied {
			denied = append(denied, res)
		}
	}
	if len(denied) == 0 {
		return nil
	}
	return &DeniedError{Denials: denied}
}

// DeniedError lists the objects that a binding with the Deny action refused.
type DeniedError struct {
	Denials []Result
}

// maxShown is how many denials DeniedError's message spells out.
const maxShown = 5

func (e *DeniedError) Error() string {
	var b strings.Builder
	b.WriteString("denied by policy: ")
	for i, d := range e.Denials {
		if i == maxShown {
			fmt.Fprintf(&b, "; and %d more", len(e.Denials)-maxShown)
			break
		}
		if i > 0 {
			b.WriteString("; ")
		}
		b.WriteString(d.String())
	}
	return b.String()
}
