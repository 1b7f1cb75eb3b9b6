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

package leadership

import (
	"context"

	rolloutsv1alpha1 "github.com/argoproj/argo-rollouts/pkg/apis/rollouts/v1alpha1"
)

// watchRollouts starts a watch of the Argo Rollouts Rollouts in the elector's namespace, so that the leader
// learns of a promote when it is made, before Argo Rollouts moves the active Service, and stops writing while
// the controller does that. The watch only brings the stop forward: the elector does not wait for it to sync,
// and a manager that cannot read Rollouts (no RBAC, no CRD) stops writing when the Service moves instead.
func (e *Elector) watchRollouts(ctx context.Context) {
	if e.cfg.Rollouts == nil {
		return
	}
	e.rolloutInformer = e.inform(ctx, e.cfg.Rollouts, "rollouts", "", &rolloutsv1alpha1.Rollout{})
}

// promotedAway reports whether the blue/green Rollout whose active Service is the elector's is moving the
// active colour away from this pod's: a user promoted it (its pause conditions are cleared while the controller
// still holds it paused, what Argo Rollouts calls unpausing) with this pod's colour active and another template
// current, or its status already names another active colour. False when no such Rollout is known.
func (e *Elector) promotedAway() bool {
	if e.rolloutInformer == nil || !e.rolloutInformer.HasSynced() {
		return false
	}
	for _, obj := range e.rolloutInformer.GetStore().List() {
		ro, ok := obj.(*rolloutsv1alpha1.Rollout)
		if ok && ro.Spec.Strategy.BlueGreen != nil && ro.Spec.Strategy.BlueGreen.ActiveService == e.cfg.ActiveService {
			return leavingColour(ro, e.cfg.PodTemplateHash)
		}
	}
	return false
}

// leavingColour is promotedAway for one Rollout and the pod-template hash of this pod.
func leavingColour(ro *rolloutsv1alpha1.Rollout, hash string) bool {
	st := ro.Status
	switch {
	case st.Abort || ro.Spec.Paused || st.BlueGreen.ActiveSelector == "":
		return false
	case st.BlueGreen.ActiveSelector != hash:
		return true
	}
	unpausing := st.ControllerPause && len(st.PauseConditions) == 0
	return unpausing && st.CurrentPodHash != "" && st.CurrentPodHash != hash
}
