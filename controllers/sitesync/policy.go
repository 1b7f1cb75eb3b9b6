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

package sitesync

import (
	"strings"

	gitopsv1alpha1 "github.com/siteops/siteops/apis/gitops/v1alpha1"
	"github.com/siteops/siteops/gitops"
	"github.com/siteops/siteops/gitops/source"
	"github.com/siteops/siteops/internal/kit"
)

// maxPolicyFindings bounds the findings of a site kept in status; the summary still counts them all.
const maxPolicyFindings = 20

// sitePolicyStatus is a site's policy result as status shows it: redacted and bounded.
func sitePolicyStatus(redact source.Redactor, p *gitops.PolicyResult) *gitopsv1alpha1.SitePolicyStatus {
	if p == nil {
		return nil
	}
	findings := p.Findings
	if len(findings) > maxPolicyFindings {
		findings = findings[:maxPolicyFindings]
	}
	out := &gitopsv1alpha1.SitePolicyStatus{Summary: p.Summary, Digest: p.Digest}
	for _, f := range findings {
		out.Findings = append(out.Findings, kit.Truncate(redact.String(f), maxSiteMessageLen))
	}
	return out
}

// previousPolicy is the policy result of a site's status, as the last sync left it.
func previousPolicy(p *gitopsv1alpha1.SitePolicyStatus) *gitops.PolicyResult {
	if p == nil {
		return nil
	}
	return &gitops.PolicyResult{Digest: p.Digest, Summary: p.Summary, Findings: append([]string(nil), p.Findings...)}
}

// emitPolicyFindings records one Warning per site rendered in this sync and published with findings of its
// Warn or Audit bindings (or objects whose namespace labels siteops could not know).
func (r *Reconciler) emitPolicyFindings(run *scope) {
	for _, s := range run.result.Sites {
		if !s.Rendered || !s.Ready || s.Policy == nil || len(s.Policy.Findings) == 0 {
			continue
		}
		r.events().Warning(run.obj, gitopsv1alpha1.EventPolicyFindings, "site %s: policies %s: %s", s.Name,
			s.Policy.Summary, run.redact.String(strings.Join(s.Policy.Findings, "; ")))
	}
}
