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

package bench

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/siteops/siteops/gitops"
)

// policyCostTarget is row P16's target (issue 32): what validation and policy add to a full render.
const policyCostTarget = 1.30

// policyCostPath is the folder of the generated repository holding P16's admission policies.
const policyCostPath = "policies"

// policyCostPolicies are a small, realistic set, each bound to every site with Deny: no :latest image (the
// Deployments), and a site label on every object of the repository's four kinds. Every object passes.
const policyCostPolicies = `apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata:
  name: no-latest
spec:
  matchConstraints:
    resourceRules:
    - {apiGroups: ["apps"], apiVersions: ["v1"], operations: ["CREATE", "UPDATE"], resources: ["deployments"]}
  validations:
  - expression: "object.spec.template.spec.containers.all(c, c.image.contains(':') && !c.image.endsWith(':latest'))"
    message: container images must name a tag other than latest
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata:
  name: no-latest
spec:
  policyName: no-latest
  validationActions: [Deny]
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata:
  name: site-label
spec:
  matchConstraints:
    resourceRules:
    - {apiGroups: [""], apiVersions: ["v1"], operations: ["CREATE", "UPDATE"],
       resources: ["services", "configmaps", "serviceaccounts"]}
    - {apiGroups: ["apps"], apiVersions: ["v1"], operations: ["CREATE", "UPDATE"], resources: ["deployments"]}
  validations:
  - expression: "has(object.metadata.labels) && 'site' in object.metadata.labels"
    message: every object carries its site label
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata:
  name: site-label
spec:
  policyName: site-label
  validationActions: [Deny]
`

// costSide is one way P16 renders the repository.
type costSide struct {
	name       string
	validation gitops.ValidationOptions
	policy     gitops.PolicyOptions
}

// costSides are P16's sides: the render alone, with validation, with validation and the policies.
var costSides = []costSide{
	{name: "render", validation: gitops.ValidationOptions{Mode: gitops.ValidationOff}},
	{name: "validation"},
	{name: "validation + policy", policy: gitops.PolicyOptions{Paths: []string{policyCostPath}}},
}

// costFixture is a generated repository of P9's shape with the policies, opened once: its checkout keeps the
// parsed schemas between renders, as a running controller's Syncer does.
type costFixture struct {
	shape repoShape
	sites []string
	c     *gitops.Checkout
}

func newCostFixture(tb testing.TB, shape repoShape) *costFixture {
	tb.Helper()
	root := tb.TempDir()
	files := shape.files()
	files[policyCostPath+"/policies.yaml"] = policyCostPolicies
	writeFiles(tb, root, files)
	c, err := gitops.OpenDir(root)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(c.Close)
	return &costFixture{shape: shape, sites: shape.siteNames(), c: c}
}

// render renders sites as side s does, with the default worker pool, and checks each site: rendered, and
// (with the policies) every binding passed on every object it matches.
func (f *costFixture) render(tb testing.TB, s costSide, sites []string) (measurement, map[string][]byte) {
	tb.Helper()
	f.c.Validation, f.c.Policy = s.validation, s.policy
	stop := stopwatch(tb)
	rendered := f.c.RenderSites(context.Background(), gitops.DefaultOverlaysDir, sites, gitops.DefaultWorkers, nil)
	m := stop()
	want := f.passedPerSite()
	out := make(map[string][]byte, len(rendered))
	for _, r := range rendered {
		if r.Err != nil {
			tb.Fatalf("%s: site %s: %v", s.name, r.Name, r.Err)
		}
		switch {
		case len(s.policy.Paths) == 0 && r.Policy != nil:
			tb.Fatalf("%s: site %s was checked against policies", s.name, r.Name)
		case len(s.policy.Paths) > 0 && (r.Policy == nil || r.Policy.Summary != want):
			tb.Fatalf("%s: site %s: policy verdict %+v, want %q", s.name, r.Name, r.Policy, want)
		}
		out[r.Name] = r.YAML
	}
	return m, out
}

// passedPerSite is the policy summary of every site: no-latest passes on each Deployment of the base, and
// site-label on each object of the base and on the site's generated ConfigMap.
func (f *costFixture) passedPerSite() string {
	deployments := (f.shape.Resources + 3) / 4 // the base's kinds cycle from a Deployment (repoShape.files)
	return fmt.Sprintf("%d passed", deployments+f.shape.Resources+1)
}

// costTimes are the measurements of each side (by index in costSides) at one size.
type costTimes struct {
	sites int
	sides [][]measurement
}

// costChunk is how many sites a side renders before the next side takes its turn: turns of a few seconds, so
// that a drift of the machine's load moves every side alike.
const costChunk = 50

// measure renders a chunk once untimed (kustomize's and the schemas' first use), then, rounds times, every
// site by each side, chunk by chunk, the sides in a different order at each chunk; every side renders the same
// bytes. A side's measurement of a round is the sum over the chunks.
func (f *costFixture) measure(tb testing.TB, rounds int) costTimes {
	tb.Helper()
	f.render(tb, costSides[len(costSides)-1], f.sites[:min(costChunk, len(f.sites))])
	t := costTimes{sites: f.shape.Sites, sides: make([][]measurement, len(costSides))}
	first := map[string][]byte{}
	for r := range rounds {
		sums := make([]measurement, len(costSides))
		for c := 0; c*costChunk < len(f.sites); c++ {
			chunk := f.sites[c*costChunk : min((c+1)*costChunk, len(f.sites))]
			for k := range costSides {
				i := (k + c + r) % len(costSides)
				m, out := f.render(tb, costSides[i], chunk)
				sums[i].wall, sums[i].cpu = sums[i].wall+m.wall, sums[i].cpu+m.cpu
				for _, site := range chunk {
					if prev, ok := first[site]; ok && !bytes.Equal(out[site], prev) {
						tb.Fatalf("%s: site %s renders other bytes than the other sides", costSides[i].name, site)
					}
					first[site] = out[site]
				}
			}
		}
		for i := range sums {
			t.sides[i] = append(t.sides[i], sums[i])
		}
	}
	return t
}

// cpu and wall are the median CPU and wall-clock times of side i.
func (t costTimes) cpu(i int) time.Duration  { return Median(cpus(t.sides[i])) }
func (t costTimes) wall(i int) time.Duration { return Median(walls(t.sides[i])) }

// ratio is the median CPU time of side i over the render alone's.
func (t costTimes) ratio(i int) float64 { return t.cpu(i).Seconds() / t.cpu(0).Seconds() }

// perSite is d per site.
func (t costTimes) perSite(d time.Duration) time.Duration { return d / time.Duration(t.sites) }

// added formats what a side adds per site, with its sign.
func (t costTimes) added(d time.Duration) string {
	if d < 0 {
		return "−" + FormatDuration(t.perSite(-d))
	}
	return "+" + FormatDuration(t.perSite(d))
}

// roundCount says how many rounds n are, as words.
func roundCount(n int) string {
	if n == 1 {
		return "1 round"
	}
	return fmt.Sprintf("%d rounds", n)
}

// BenchmarkPolicyCost is row P16 (issue 32): a full render of P9's repository (100 and 1,000 sites × 20
// resources, each size its own repository) by the render alone, with validation, and with validation and
// two Deny policies bound to every site, in one run, taking turns (measure). The sides render the same
// bytes, and every binding passes on every site. The 100-site repository is measured SITEOPS_BENCH_ROUNDS
// (default 3) rounds, the 1,000-site one once; the row reports medians, judged on CPU time (the machine's
// load moves the wall clock more).
func BenchmarkPolicyCost(b *testing.B) {
	resources := envInt(b, envResources, benchShape.Resources)
	rounds := envInt(b, envRounds, 3)
	var sizes []costTimes
	for b.Loop() {
		sizes = sizes[:0]
		for _, size := range []struct{ sites, rounds int }{{100, rounds}, {1000, 1}} {
			f := newCostFixture(b, repoShape{Sites: size.sites, Resources: resources})
			sizes = append(sizes, f.measure(b, size.rounds))
		}
	}
	for _, t := range sizes {
		b.ReportMetric(t.ratio(len(costSides)-1), fmt.Sprintf("ratio-%d-sites", t.sites))
	}
	Record(policyCostRow(sizes, resources))
}

// policyCostRow is row P16 of the sizes measured.
func policyCostRow(sizes []costTimes, resources int) Row {
	full := len(costSides) - 1
	var siteops, anchor, ratio, n, notes []string
	met := true
	for _, t := range sizes {
		at := thousands(t.sites) + " sites"
		render, validated, checked := t.cpu(0), t.cpu(1), t.cpu(full)
		siteops = append(siteops, fmt.Sprintf("%s: %s (%s/site; validation %s/site, policy %s/site)", at,
			FormatDuration(checked), FormatDuration(t.perSite(checked)), t.added(validated-render),
			t.added(checked-validated)))
		anchor = append(anchor, fmt.Sprintf("%s: %s (%s/site)", at, FormatDuration(render),
			FormatDuration(t.perSite(render))))
		ratio = append(ratio, fmt.Sprintf("%s: %.3g (validation alone %.3g)", at, t.ratio(full), t.ratio(1)))
		n = append(n, fmt.Sprintf("%s × %s", at, roundCount(len(t.sides[0]))))
		notes = append(notes, fmt.Sprintf("%s wall clock: render %s, with validation %s, with validation and "+
			"policy %s", at, FormatDuration(t.wall(0)), FormatDuration(t.wall(1)), FormatDuration(t.wall(full))))
		met = met && t.ratio(full) <= policyCostTarget
	}
	return Row{
		ID: "P16",
		Measure: fmt.Sprintf("validation + policy (issue 32): full render of P9's repository, %d resources per "+
			"site, render alone vs render + validation + policy (CPU time, median)", resources),
		Siteops: strings.Join(siteops, "; "),
		Anchor:  "render alone: " + strings.Join(anchor, "; "),
		Ratio:   strings.Join(ratio, "; "),
		Target:  fmt.Sprintf("≤ %.2f× the render alone", policyCostTarget),
		Outcome: Judge(met),
		N:       strings.Join(n, "; "),
		Notes: fmt.Sprintf("gitops.OpenDir once per size, warmed by an untimed render (kustomize and the "+
			"Kubernetes 1.37 schemas loaded, as in a running controller), then RenderSites with %d workers, the "+
			"sides taking turns every %d sites in rotating order; policies: no :latest image (Deployments) and a "+
			"site label (every object), both Deny, bound to every site, compiled at each turn; ",
			gitops.DefaultWorkers, costChunk) + strings.Join(notes, "; "),
	}
}

// TestPolicyCostSmoke runs a round of P16's measurement on a small repository: every side renders every site,
// the same bytes, and the policies pass on every object they match.
func TestPolicyCostSmoke(t *testing.T) {
	f := newCostFixture(t, smokeShape)
	times := f.measure(t, 1)
	for i, s := range costSides {
		if len(times.sides[i]) != 1 || times.sides[i][0].cpu <= 0 {
			t.Fatalf("side %s: measurements %v, want one round", s.name, times.sides[i])
		}
	}
	row := policyCostRow([]costTimes{times}, smokeShape.Resources)
	if row.ID != "P16" || !strings.Contains(row.Siteops, "5 sites") {
		t.Fatalf("row = %+v", row)
	}
}
