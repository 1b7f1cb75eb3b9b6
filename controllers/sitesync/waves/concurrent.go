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

	gitopsv1alpha1 "github.com/siteops/siteops/apis/gitops/v1alpha1"
)

// slots are the pending sites of wave w that may be published now: all of them, or, with maxConcurrent, as
// many as the wave's sites in flight (published, not yet Synced and Healthy) leave room for, first by name.
// The others wait for a free slot; when none is free the status says so.
func (p *planning) slots(w wave, pending []*gitopsv1alpha1.RolloutSite) []*gitopsv1alpha1.RolloutSite {
	if w.maxConcurrent == 0 {
		return pending
	}
	inflight := 0
	for _, rec := range p.members(w.name, gitopsv1alpha1.SitePublished) {
		s := p.sites[rec.Name]
		if s.Delivery == gitopsv1alpha1.DeliveryDelivered {
			continue
		}
		inflight++
		rec.WaitingFor = fmt.Sprintf("Argo CD: Synced and Healthy (now %s)", s.Delivery)
		if p.r.deadline > 0 && rec.PublishedAt != nil {
			p.wakeAt(rec.PublishedAt.Add(p.r.deadline))
		}
	}
	free := max(0, w.maxConcurrent-inflight)
	if free >= len(pending) {
		return pending
	}
	waitFor(pending[free:], fmt.Sprintf("a free slot: wave %s publishes %d sites at a time", w.name, w.maxConcurrent))
	if free == 0 {
		st := &p.out.Status
		st.Phase, st.Wave = gitopsv1alpha1.RolloutProgressing, w.name
		st.Message = fmt.Sprintf("wave %s: %d sites not yet Synced and Healthy at %s; %d more wait for a free slot "+
			"(maxConcurrent %d)", w.name, inflight, short(p.in.Revision), len(pending), w.maxConcurrent)
	}
	return pending[:free]
}
