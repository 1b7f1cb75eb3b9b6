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

package dashboard

import gitopsv1alpha1 "github.com/siteops/siteops/apis/gitops/v1alpha1"

// Tones a state word is shown in, as the stylesheet's tone-* classes colour them.
const (
	toneOK   = "ok"
	toneWait = "wait"
	toneBad  = "bad"
	toneIdle = "idle"
)

// toneOf is the colour of a state word of the views: a site's place in the rollout or its cell, its delivery
// state, or a rollout phase. Good words are ok, words on their way wait, failures are bad, anything else
// (Unchanged, NotObserved, an unknown word) is idle: a success is never shown in red.
func toneOf(state string) string {
	switch state {
	case string(gitopsv1alpha1.DeliveryDelivered), string(gitopsv1alpha1.RolloutComplete):
		return toneOK
	case string(gitopsv1alpha1.SitePending), string(gitopsv1alpha1.SitePublished),
		string(gitopsv1alpha1.RolloutProgressing), string(gitopsv1alpha1.RolloutSoaking),
		string(gitopsv1alpha1.RolloutAnalyzing), string(gitopsv1alpha1.RolloutFrozen),
		string(gitopsv1alpha1.RolloutPaused), string(gitopsv1alpha1.RolloutWaitingForApproval),
		string(gitopsv1alpha1.RolloutInconclusive):
		return toneWait
	case string(gitopsv1alpha1.SiteHalted), string(gitopsv1alpha1.SiteReverted), string(gitopsv1alpha1.SiteFailed),
		string(gitopsv1alpha1.DeliveryDegraded), string(gitopsv1alpha1.DeliveryOutOfSync),
		string(gitopsv1alpha1.DeliveryUnreachable), string(gitopsv1alpha1.DeliveryNoApplication):
		return toneBad
	}
	return toneIdle
}
