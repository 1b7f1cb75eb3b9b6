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
	"testing"
	"time"

	. "github.com/onsi/gomega"
)

func TestGrowthRowJudgesTheFullRenderAtTenThousandSites(t *testing.T) {
	// point renders every site in perSite and passes every other bound of growthTarget.
	point := func(sites int, perSite time.Duration) growthPoint {
		full := perSite * time.Duration(sites)
		return growthPoint{
			Sites: sites, Resources: 20, Full: measurement{wall: full},
			Incremental:    []measurement{{wall: full / (2 * growthMinSpeedup)}},
			PushToRendered: []time.Duration{time.Second}, CLISample: 100, CLI: measurement{wall: time.Second},
		}
	}
	within := growthMaxLargeFull / growthLargeSites
	over := (growthMaxLargeFull + time.Second) / growthLargeSites
	for _, tc := range []struct {
		name string
		p    growthPoint
		want Outcome
	}{
		{"10,000 sites within the bound", point(growthLargeSites, within), Judge(true)},
		{"10,000 sites over the bound", point(growthLargeSites, over), Judge(false)},
		{"1,000 sites are judged on growth only", point(1000, over), Judge(true)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g := NewWithT(t)
			base := point(100, tc.p.Full.wall/time.Duration(tc.p.Sites))
			g.Expect(growthRow(tc.p, base).Outcome).To(Equal(tc.want))
		})
	}
}
