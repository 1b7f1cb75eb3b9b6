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
	"slices"
	"strings"
	"testing"

	gitopsv1alpha1 "github.com/siteops/siteops/apis/gitops/v1alpha1"
)

// FuzzAssign compiles a wave of any one entry followed by two percentage waves and shares out a fleet of n
// sites. Properties: nothing panics; an entry Compile refuses names spec.waves[0].sites; otherwise every site
// gets exactly one wave, each percentage wave takes its share of the sites left rounded up, taken in name
// order, and the fleet's order does not matter.
func FuzzAssign(f *testing.F) {
	f.Add("10%", uint8(50), uint8(100), uint8(10))
	f.Add("site-0*", uint8(25), uint8(25), uint8(3))
	f.Add("120%", uint8(1), uint8(1), uint8(0))
	f.Add("eu-[ab", uint8(100), uint8(7), uint8(255))
	f.Fuzz(func(t *testing.T, first string, a, b, n uint8) {
		shares := []int{int(a)%100 + 1, int(b)%100 + 1}
		spec := gitopsv1alpha1.RolloutSpec{Waves: []gitopsv1alpha1.Wave{{Name: "first", Sites: []string{first}},
			{Name: "a", Sites: []string{fmt.Sprintf("%d%%", shares[0])}},
			{Name: "b", Sites: []string{fmt.Sprintf("%d%%", shares[1])}}}}
		r, err := Compile(spec)
		if err != nil {
			if !strings.Contains(err.Error(), "spec.waves[0].sites[0]") {
				t.Fatalf("error without the field path: %v", err)
			}
			return
		}
		fleet := make([]string, n)
		for i := range fleet {
			fleet[i] = fmt.Sprintf("site-%03d", i)
		}
		got := r.Assign(fleet)
		if len(got) != len(fleet) {
			t.Fatalf("%d sites assigned, want %d", len(got), len(fleet))
		}
		reversed := slices.Clone(fleet)
		slices.Reverse(reversed)
		again := r.Assign(reversed)
		var rest []string
		for _, s := range fleet {
			if again[s] != got[s] {
				t.Fatalf("%s in wave %s, and %s in the fleet's reverse order", s, got[s], again[s])
			}
			if got[s] != "first" {
				rest = append(rest, s)
			}
		}
		for i, w := range []string{"a", "b"} {
			want := min(len(rest), (len(rest)*shares[i]+99)/100)
			for j, s := range rest {
				if (j < want) != (got[s] == w) {
					t.Fatalf("wave %s (%d%%) of %v: %s in wave %s", w, shares[i], rest, s, got[s])
				}
			}
			rest = rest[want:]
		}
		for _, s := range rest {
			if got[s] != gitopsv1alpha1.ImplicitWave {
				t.Fatalf("%s left over in wave %s", s, got[s])
			}
		}
	})
}
