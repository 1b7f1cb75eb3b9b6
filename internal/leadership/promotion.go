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
// learns of a promote when it is made, before Argo Rollouts moves the active Service, and hands the Lease to the
// colour promoted to while the controller does that. The watch only brings the hand-over forward: the elector
// does not wait for it to sync, and a manager that cannot read Rollouts (no RBAC, no CRD) hands the Lease over
// when the Service moves instead.
func (e *Elector) watchRollouts(ctx context.Context) {
	if e.cfg.Rollouts == nil {
		return
	}
	e.rolloutInformer = e.inform(ctx, e.cfg.Rollouts, "rollouts", "", &rolloutsv1alpha1.Rollout{})
}

// rollout is the blue/green Rollout whose active Service is the elector's, nil when none is known.
func (e *Elector) rollout() *rolloutsv1alpha1.Rollout {
	if e.rolloutInformer == nil || !e.rolloutInformer.HasSynced() {
		return nil
	}
	for _, obj := range e.rolloutInformer.GetStore().List() {
		ro, ok := obj.(*rolloutsv1alpha1.Rollout)
		if ok && ro.Spec.Strategy.BlueGreen != nil && ro.Spec.Strategy.BlueGreen.ActiveService == e.cfg.ActiveService {
			return ro
		}
	}
	return nil
}

// promotedAway reports whether ro (nil: no Rollout known) is being promoted from the colour of pod-template
// hash to another, the active Service not moved yet.
func promotedAway(ro *rolloutsv1alpha1.Rollout, hash string) bool {
	return ro != nil && promoting(ro) && ro.Status.BlueGreen.ActiveSelector == hash
}

// promotedTo reports whether ro (nil: no Rollout known) is being promoted to the colour of pod-template hash,
// the active Service not moved yet.
func promotedTo(ro *rolloutsv1alpha1.Rollout, hash string) bool {
	return ro != nil && promoting(ro) && ro.Status.CurrentPodHash == hash
}

// promoting reports whether a user promoted ro and Argo Rollouts has not switched the active colour yet: the
// pause conditions are cleared while the controller still holds the Rollout paused (what Argo Rollouts calls
// unpausing), with one colour active and another template current. An abort, or a user's pause, ends it.
func promoting(ro *rolloutsv1alpha1.Rollout) bool {
	st := ro.Status
	unpausing := st.ControllerPause && len(st.PauseConditions) == 0
	active := st.BlueGreen.ActiveSelector
	return unpausing && !st.Abort && !ro.Spec.Paused && active != "" && st.CurrentPodHash != "" &&
		st.CurrentPodHash != active
}
