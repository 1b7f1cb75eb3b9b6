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

package waves

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"

	gitopsv1alpha1 "github.com/siteops/siteops/apis/gitops/v1alpha1"
)

// sitesNamed are n sites site-00 … site-(n-1), in reverse order so that Assign has to sort them.
func sitesNamed(n int) []string {
	out := make([]string, n)
	for i := range n {
		out[n-1-i] = fmt.Sprintf("site-%02d", i)
	}
	return out
}

// byWave lists each wave's sites as "wave: a b c".
func byWave(assigned map[string]string) []string {
	groups := map[string][]string{}
	for _, site := range slices.Sorted(maps.Keys(assigned)) {
		groups[assigned[site]] = append(groups[assigned[site]], site)
	}
	var out []string
	for _, w := range slices.Sorted(maps.Keys(groups)) {
		out = append(out, w+": "+strings.Join(groups[w], " "))
	}
	return out
}

// TestAssignSharesOutTheFleetByPercentage: a wave given as N% takes N% (rounded up) of the sites no wave
// names and no earlier percentage took, in the order of their names; named sites keep their wave wherever it
// is; the implicit last wave takes what is left.
func TestAssignSharesOutTheFleetByPercentage(t *testing.T) {
	pct := func(names ...string) gitopsv1alpha1.RolloutSpec {
		var spec gitopsv1alpha1.RolloutSpec
		for i, s := range names {
			spec.Waves = append(spec.Waves, gitopsv1alpha1.Wave{Name: fmt.Sprintf("w%d", i+1), Sites: []string{s}})
		}
		return spec
	}
	cases := []struct {
		name  string
		spec  gitopsv1alpha1.RolloutSpec
		fleet []string
		want  []string
	}{{
		name: "10%, 50%, 100% of 10 sites: 1, then 5 of the 9 left (4.5 rounded up), then the last 4",
		spec: pct("10%", "50%", "100%"), fleet: sitesNamed(10),
		want: []string{"w1: site-00", "w2: site-01 site-02 site-03 site-04 site-05",
			"w3: site-06 site-07 site-08 site-09"},
	}, {
		name: "25% of 3 sites rounds up to one; what no wave takes is unlisted",
		spec: pct("25%", "25%"), fleet: sitesNamed(3),
		want: []string{"unlisted: site-02", "w1: site-00", "w2: site-01"},
	}, {
		name: "a named site keeps its later wave; percentages share out the others",
		spec: pct("50%", "site-00", "100%"), fleet: sitesNamed(5),
		want: []string{"w1: site-01 site-02", "w2: site-00", "w3: site-03 site-04"},
	}, {
		name: "1% of a small fleet is one site; nothing left for a later percentage",
		spec: pct("1%", "100%", "50%"), fleet: sitesNamed(2),
		want: []string{"w1: site-00", "w2: site-01"},
	}, {
		name: "an empty fleet",
		spec: pct("10%"), fleet: nil, want: nil,
	}}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := compile(t, tc.spec)
			got := byWave(r.Assign(tc.fleet))
			if !slices.Equal(got, tc.want) {
				t.Fatalf("waves\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(tc.want, "\n"))
			}
			// Stable: the same fleet in any order gives the same waves.
			shuffled := slices.Clone(tc.fleet)
			slices.Sort(shuffled)
			if again := byWave(r.Assign(shuffled)); !slices.Equal(again, got) {
				t.Errorf("in another order: %v, want %v", again, got)
			}
		})
	}
}

// TestPlanPlacesSitesInPercentageWaves: the plan's records carry the wave Assign gives, so a 10% canary of
// 10 changed sites publishes one site first.
func TestPlanPlacesSitesInPercentageWaves(t *testing.T) {
	r := compile(t, gitopsv1alpha1.RolloutSpec{Waves: []gitopsv1alpha1.Wave{
		{Name: "canary", Sites: []string{"10%"}}, {Name: "half", Sites: []string{"50%"}},
		{Name: "rest", Sites: []string{"100%"}},
	}})
	var sites []Site
	for _, n := range sitesNamed(10) {
		sites = append(sites, changed(n))
	}
	p := r.Plan(Input{Revision: rev1, Sites: sites, Now: t0, CanPublish: true})
	if !slices.Equal(p.Publish, []string{"site-00"}) || p.Status.Wave != "canary" {
		t.Fatalf("publish %v wave %s, want site-00 of wave canary", p.Publish, p.Status.Wave)
	}
	if got := site(t, p.Status, "site-05"); got.Wave != "half" || got.WaitingFor != "wave canary" {
		t.Errorf("site-05: wave %s waits for %q", got.Wave, got.WaitingFor)
	}
	if got := site(t, p.Status, "site-06").Wave; got != "rest" {
		t.Errorf("site-06 in wave %s, want rest", got)
	}
}

// TestCompileRejectsBadPercentages: a percentage outside 1%–100%, or next to names, cannot be read; the error
// names the field.
func TestCompileRejectsBadPercentages(t *testing.T) {
	for _, sites := range [][]string{{"120%"}, {"0%"}, {"x%"}, {"10%", "dev"}} {
		_, err := Compile(gitopsv1alpha1.RolloutSpec{Waves: []gitopsv1alpha1.Wave{{Name: "w", Sites: sites}}})
		if err == nil || !strings.Contains(err.Error(), "spec.waves[0].sites[") {
			t.Errorf("sites %v: error %v, want one naming spec.waves[0].sites", sites, err)
		}
	}
}
