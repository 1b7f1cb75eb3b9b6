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

package v1alpha1

// The words a person reads for where a site and a rollout are come from here: `siteops status`, the
// dashboard, the events, the README and the guides show these and no synonyms (test/docs, cmd/siteops and
// internal/dashboard read them back).

// SiteStates are the words for a site's place in a rollout as every view shows it, in the order a change
// goes: Unchanged by the revision, Pending, Published, then Delivered (Argo CD reports it Synced and Healthy
// at its rendered commit), or Failed, Halted, Reverted.
func SiteStates() []string {
	return []string{string(SiteUnchanged), string(SitePending), string(SitePublished), string(DeliveryDelivered),
		string(SiteFailed), string(SiteHalted), string(SiteReverted)}
}

// DeliveryStates are the words of status.sites[].delivery, which the views show for a site without a rollout.
func DeliveryStates() []string {
	return []string{string(DeliveryDelivered), string(DeliveryPending), string(DeliveryOutOfSync),
		string(DeliveryDegraded), string(DeliveryUnreachable), string(DeliveryNoApplication),
		string(DeliveryNotObserved)}
}

// RolloutPhases are the words of status.rollout.phase.
func RolloutPhases() []string {
	return []string{string(RolloutProgressing), string(RolloutSoaking), string(RolloutAnalyzing),
		string(RolloutInconclusive), string(RolloutPaused), string(RolloutFrozen), string(RolloutWaitingForApproval),
		string(RolloutHalted), string(RolloutComplete)}
}

// ShownSiteState is the one word every view shows for a site: Failed when its overlay failed to render;
// with a rollout (rs not nil), Delivered once the rollout published it and Argo CD reports it Synced and
// Healthy at its rendered commit, else its state in the rollout; without one, its delivery state. s may be
// nil when the status has no row for the site yet.
func ShownSiteState(rs *RolloutSite, s *SiteStatus) string {
	switch {
	case s != nil && !s.Ready:
		return string(SiteFailed)
	case rs == nil && s != nil:
		return string(s.Delivery)
	case rs == nil:
		return ""
	case rs.State == SitePublished && s != nil && s.Delivery == DeliveryDelivered:
		return string(DeliveryDelivered)
	}
	return string(rs.State)
}
