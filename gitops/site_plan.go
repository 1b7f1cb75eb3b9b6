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
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/siteops/siteops/gitops/guard"
	"github.com/siteops/siteops/gitops/internal/tree"
	"github.com/siteops/siteops/gitops/publish"
)

// sitePlan is what a Sync plans and learns per site, one siteRun each, before publishing.
type sitePlan struct {
	runs   []*siteRun          // sorted by name
	byName map[string]*siteRun // the same runs
}

// newSitePlan selects the sites (o.Sites, or every site of the overlays folder) and starts each one's state
// from its previous one.
func newSitePlan(t tree.FS, o SyncOptions) (*sitePlan, error) {
	names := o.Sites
	if len(names) == 0 {
		found, err := guard.DiscoverSites(t, o.OverlaysDir)
		if err != nil {
			return nil, err
		}
		names = found
	}
	names = slices.Clone(names)
	slices.Sort(names)
	p := &sitePlan{runs: siteRuns(o.OverlaysDir, names), byName: map[string]*siteRun{}}
	for _, r := range p.runs {
		r.state = &SiteState{Name: r.name}
		if prev, ok := o.Previous[r.name]; ok {
			r.state.LastRenderedRevision, r.state.RenderedCommit = prev.LastRenderedRevision, prev.RenderedCommit
		}
		p.byName[r.name] = r
	}
	return p, nil
}

// forgetRenderedCommits drops the rendered commits taken from the previous state, so that findLastChanges
// reads each site's from the target branch.
func (p *sitePlan) forgetRenderedCommits() {
	for _, r := range p.runs {
		r.state.RenderedCommit = ""
	}
}

// guarded records the outcome of the guard in the sites' states (a site the guard refused is failed, not an
// error) and gives each valid site its folder on the target branch.
func (p *sitePlan) guarded(o SyncOptions) error {
	var valid []string
	for _, r := range p.runs {
		s := r.state
		if r.invalid != nil {
			s.Reason, s.Message = FailureInvalidName, r.invalid.Error()
			continue
		}
		valid = append(valid, r.name)
		if r.guardErr != nil {
			var g *guard.Refusal
			if !errors.As(r.guardErr, &g) {
				return fmt.Errorf("reading site %s: %w", r.name, r.guardErr)
			}
			s.Reason, s.Message = FailureGuardRefused, o.redactMsg(r.guardErr.Error())
			if r.in != nil {
				s.Warnings = sortedWarnings(r.in.Warnings)
			}
			continue
		}
		s.InputDigest, s.Warnings = r.in.Digest, sortedWarnings(r.in.Warnings)
	}
	paths, err := sitePaths(o.Target.PathTemplate, valid)
	if err != nil {
		return err
	}
	for _, r := range p.runs {
		r.path = paths[r.name]
	}
	return nil
}

// decide skips the guarded sites whose digest is that of a Ready previous render, checked against the same
// policies (policyDigest), whose output is still on the target branch (with its attestation, when attest is
// set); skipped sites are Ready and keep their previous policy result.
func (p *sitePlan) decide(st publish.Target, previous map[string]SiteState, policyDigest string, attest bool) {
	for _, r := range p.runs {
		if r.invalid != nil || r.guardErr != nil {
			continue
		}
		prev, ok := previous[r.name]
		if ok && prev.Ready && prev.InputDigest == r.in.Digest && prev.Policy.digest() == policyDigest &&
			st.Files != nil {
			mode, _, err := st.Files.Entry(r.path + "/" + ManifestFile)
			if err == nil && mode.IsFile() && (!attest || hasAttestation(st.Files, r.name)) {
				r.skip, r.state.Ready, r.state.Policy = true, true, prev.Policy
			}
		}
	}
}

// rendered records the outcome of the builds in the sites' states.
func (p *sitePlan) rendered(o SyncOptions) {
	for _, r := range p.runs {
		if !r.rendered {
			continue
		}
		s := r.state
		s.Rendered, s.RenderDuration, s.Policy = true, r.took, r.policy
		if len(r.checked) > 0 {
			s.Warnings = sortedWarnings(append(s.Warnings, r.checked...))
		}
		if r.renderErr != nil {
			s.Ready, s.Reason, s.Message = false, failureReason(r.renderErr), o.redactMsg(r.renderErr.Error())
			o.Logger.V(1).Info("site failed", "site", r.name, "error", s.Message)
			continue
		}
		s.Ready = true
	}
}

// files lists the outputs to publish, sorted by folder.
func (p *sitePlan) files() []publish.File {
	var out []publish.File
	for _, r := range p.runs {
		if !r.blob.IsZero() {
			out = append(out, publish.File{Dir: r.path, Site: r.name, Blob: r.blob, Attestation: r.attestation})
		}
	}
	slices.SortFunc(out, func(a, b publish.File) int { return strings.Compare(a.Dir, b.Dir) })
	return out
}

// paths maps each valid site to its folder on the target branch.
func (p *sitePlan) paths() map[string]string {
	out := map[string]string{}
	for _, r := range p.runs {
		if r.path != "" {
			out[r.name] = r.path
		}
	}
	return out
}

// sorted is the sites' states, with extra ones (removed sites kept as they were), sorted by name.
func (p *sitePlan) sorted(extra map[string]SiteState) []SiteState {
	all := make(map[string]SiteState, len(p.byName)+len(extra))
	for name, r := range p.byName {
		all[name] = *r.state
	}
	maps.Copy(all, extra)
	out := make([]SiteState, 0, len(all))
	for _, name := range slices.Sorted(maps.Keys(all)) {
		out = append(out, all[name])
	}
	return out
}

// removedStates are the previous states of the removed sites (folder → name).
func removedStates(removed map[string]string, previous map[string]SiteState) map[string]SiteState {
	out := make(map[string]SiteState, len(removed))
	for _, name := range removed {
		out[name] = previous[name]
	}
	return out
}
