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
	"fmt"
	"path"
	"sort"
	"sync"
	"time"

	"github.com/go-git/go-git/v5/plumbing"
	kusttypes "sigs.k8s.io/kustomize/api/types"

	"github.com/siteops/siteops/gitops/guard"
	"github.com/siteops/siteops/gitops/helmchart"
	"github.com/siteops/siteops/gitops/internal/tree"
	"github.com/siteops/siteops/gitops/render"
)

// siteRun is one site on its way from the checkout to rendered bytes, and what a Sync plans for it.
type siteRun struct {
	name string
	dir  string // kustomization folder, relative to the root
	// invalid is set when the name cannot name a site: the site is neither guarded nor rendered.
	invalid error
	// in is what the guard passed; with guardErr, what the walk reached before it refused (may be nil).
	in       *guard.Inputs
	guardErr error // the guard's refusal, or a failure to read the checkout
	// skip marks a guarded site whose output is not built again (a Sync finds it published already).
	skip      bool
	rendered  bool          // the build ran
	took      time.Duration // wall time of the build
	renderErr error         // the build failed, or its output did not validate or pass the policies
	checked   []string      // the validation's and the policies' warnings
	// policy is what the policies made of the output, recorded in its provenance; nil when none were checked.
	policy *PolicyResult

	// The rest is a Sync's.
	state *SiteState
	path  string        // the site's folder on the target branch (valid names only)
	blob  plumbing.Hash // the output to publish in path: rendered or restored; zero leaves the folder as it is
	// attestation is the signed provenance of blob (zero: none, as without a signing key).
	attestation plumbing.Hash
}

// failed is the error that stopped the run, or nil.
func (r *siteRun) failed() error {
	switch {
	case r.invalid != nil:
		return r.invalid
	case r.guardErr != nil:
		return r.guardErr
	}
	return r.renderErr
}

// siteRuns are the runs of sites of overlaysDir, their names validated.
func siteRuns(overlaysDir string, sites []string) []*siteRun {
	runs := make([]*siteRun, len(sites))
	for i, s := range sites {
		runs[i] = &siteRun{name: s}
		if err := guard.ValidateSiteName(s); err != nil {
			runs[i].invalid = err
			continue
		}
		runs[i].dir = path.Join(tree.CleanRel(overlaysDir), s)
	}
	return runs
}

// builder is how buildSites guards and renders.
type builder struct {
	guard    func(dir string) (*guard.Inputs, error) // guardSite with contents, or a Syncer's memo of it
	workers  int
	images   []kusttypes.Image
	charts   *helmchart.Renderer      // renders the sites' Helm charts, remembering renders
	version  func(site string) string // the site's Kubernetes version, for its charts
	onRender func(site string)        // called as each build starts; may be nil
	check    *checker                 // validates each output; nil when validation is off
	policy   *policyGate              // checks each valid output against the admission policies; nil when none
}

// buildSites is the one path from a checkout to rendered bytes, for Sync and the CLI alike: it guards every
// run with a valid name, calls between (when set) to mark the runs to skip, then renders the guarded runs
// that are not skipped, workers at a time, validates each output (b.check), checks the valid ones against the
// admission policies (b.policy), and hands each finished build to sink (from the building goroutine; sink
// serializes what it shares): its output, with the run's renderErr set when the build failed (no output),
// the output did not validate, or a policy denied it. A cancelled ctx fails the builds not
// yet started. The error is between's or the first of sink's; per-site failures stay in the runs.
func buildSites(ctx context.Context, runs []*siteRun, b builder, between func() error,
	sink func(r *siteRun, yaml []byte) error) error {
	for _, r := range runs {
		if r.invalid == nil {
			r.in, r.guardErr = b.guard(r.dir)
		}
	}
	if between != nil {
		if err := between(); err != nil {
			return err
		}
	}
	var jobs []render.Job
	var ran []*siteRun
	for _, r := range runs {
		if r.invalid == nil && r.guardErr == nil && !r.skip {
			job := render.Job{Name: r.name, Dir: r.dir, In: r.in}
			if b.version != nil {
				job.KubeVersion = b.version(r.name)
			}
			jobs, ran = append(jobs, job), append(ran, r)
		}
	}
	var mu sync.Mutex
	var sinkErr error
	po := render.PoolOptions{Workers: b.workers, Images: b.images, Charts: b.charts, OnRender: b.onRender}
	render.Pool(ctx, jobs, po, func(i int, res render.Result) {
		r := ran[i]
		if res.Err == nil {
			res.Err = b.checkOutput(ctx, r, res.YAML)
		}
		r.rendered, r.took, r.renderErr = true, res.Took, res.Err
		if sink == nil {
			return
		}
		if err := sink(r, res.YAML); err != nil {
			mu.Lock()
			if sinkErr == nil {
				sinkErr = fmt.Errorf("storing the output of %s: %w", r.name, err)
			}
			mu.Unlock()
		}
	})
	return sinkErr
}

// sortedWarnings returns warnings sorted and de-duplicated.
func sortedWarnings(w []string) []string {
	if len(w) == 0 {
		return nil
	}
	out := append([]string(nil), w...)
	sort.Strings(out)
	n := 0
	for i, s := range out {
		if i == 0 || s != out[n-1] {
			out[n] = s
			n++
		}
	}
	return out[:n]
}
