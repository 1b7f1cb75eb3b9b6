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
	"crypto/sha256"
	"encoding/hex"
	"sync"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/siteops/siteops/gitops/internal/permanent"
	"github.com/siteops/siteops/gitops/internal/tree"
	"github.com/siteops/siteops/gitops/policy"
)

// PolicyOptions says which admission policies every site's rendered objects must pass before they are
// published.
type PolicyOptions struct {
	// Paths are files or folders of the source with ValidatingAdmissionPolicies, their bindings and the
	// parameter objects the bindings name; none = no policy check.
	Paths []string
}

// PolicyResult is what the admission policies made of a site's output.
type PolicyResult struct {
	// Digest identifies the policy documents the output was checked against: a site whose inputs and
	// policies are unchanged is not rendered again.
	Digest string
	// Summary counts the verdicts of every binding on every object it matched, "4 passed, 1 warned".
	Summary string
	// Findings are the verdicts other than passed and denied (warned, audited, skipped), each naming the
	// object, the policy and the binding.
	Findings []string
}

// policyGate checks the rendered output of each site of one checkout against the policies of its source.
type policyGate struct {
	policies *policy.Policies
	digest   string
}

// newPolicyGate reads the policies of t at o.Paths and compiles them, or takes them from memo (nil: no memo)
// when it compiled the same documents before; nil when there are none. A path that does not exist, or a
// policy document that does not read, is a permanent error.
func newPolicyGate(t tree.FS, o PolicyOptions, memo *policyMemo) (*policyGate, error) {
	if len(o.Paths) == 0 {
		return nil, nil
	}
	var docs [][]byte
	for _, p := range o.Paths {
		found, err := yamlDocs(t, p, true, "policy")
		if err != nil {
			return nil, err
		}
		docs = append(docs, found...)
	}
	h := sha256.New()
	for _, d := range docs {
		h.Write(d)
		h.Write([]byte("\n---\n"))
	}
	digest := "sha256:" + hex.EncodeToString(h.Sum(nil))
	if ps := memo.get(digest); ps != nil {
		return &policyGate{policies: ps, digest: digest}, nil
	}
	ps, err := policy.Load(docs)
	if err != nil {
		return nil, permanent.Error(err)
	}
	memo.put(digest, ps)
	return &policyGate{policies: ps, digest: digest}, nil
}

// policyMemo keeps the policies compiled from the documents of recent Syncs, by their digest: compiling
// costs more than checking a site. Safe for concurrent use; the zero value is not usable, nil remembers
// nothing.
type policyMemo struct {
	mu       sync.Mutex
	compiled map[string]*policy.Policies
}

// maxPolicyMemo bounds the policy sets a memo keeps (a few per SiteSync are in use at a time).
const maxPolicyMemo = 32

func newPolicyMemo() *policyMemo { return &policyMemo{compiled: map[string]*policy.Policies{}} }

func (m *policyMemo) get(digest string) *policy.Policies {
	if m == nil {
		return nil
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.compiled[digest]
}

func (m *policyMemo) put(digest string, ps *policy.Policies) {
	if m == nil {
		return
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if len(m.compiled) >= maxPolicyMemo {
		clear(m.compiled)
	}
	m.compiled[digest] = ps
}

// check evaluates the policies on the objects of a site's output; the error fails the site when a Deny binding
// refused an object, or when the check could not run.
func (g *policyGate) check(ctx context.Context, objs []*unstructured.Unstructured) (*PolicyResult, []string, error) {
	r, err := g.policies.Check(ctx, objs)
	if err != nil {
		return nil, r.Warnings, failed(FailurePolicyDenied, err)
	}
	res := &PolicyResult{Digest: g.digest, Summary: r.Summary()}
	for _, f := range r.Results {
		if f.Outcome != policy.Denied {
			res.Findings = append(res.Findings, f.String())
		}
	}
	if err := r.Err(); err != nil {
		return res, r.Warnings, failed(FailurePolicyDenied, err)
	}
	return res, r.Warnings, nil
}

// digest is the Digest of r, "" when r is nil.
func (r *PolicyResult) digest() string {
	if r == nil {
		return ""
	}
	return r.Digest
}

// policyTrailers are the Siteops-Policy trailers of the sites rendered and checked in this call whose output
// is published (not restored by the gate), by name.
func (p *sitePlan) policyTrailers(restored map[string]string) []Trailer {
	var out []Trailer
	for _, r := range p.runs {
		if _, back := restored[r.name]; r.rendered && !back && !r.blob.IsZero() && r.policy != nil {
			out = append(out, Trailer{Key: TrailerPolicy, Value: r.name + ": " + r.policy.Summary})
		}
	}
	return out
}

// policyDigest is the digest of g's policies, "" when there are none.
func (g *policyGate) policyDigest() string {
	if g == nil {
		return ""
	}
	return g.digest
}
