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

package sitesync

import (
	"time"

	"k8s.io/apimachinery/pkg/api/meta"

	gitopsv1alpha1 "github.com/siteops/siteops/apis/gitops/v1alpha1"
)

// syncDue reports whether this reconcile syncs (fetch, render, push), or only observes delivery and, then,
// how long until the next sync is due. A change of an Argo CD Application wakes the SiteSync to report it;
// that must not fetch from Git each time Argo CD updates a status. A sync is due on a new spec or trigger,
// after a failure or a stall, with no sync yet, and once half the interval has passed since the last one
// (the interval requeue always lands after that).
func syncDue(obj *gitopsv1alpha1.SiteSync, now time.Time) (bool, time.Duration) {
	st := obj.Status
	if st.LastSyncTime == nil || st.ObservedGeneration != obj.Generation ||
		obj.GetAnnotations()[gitopsv1alpha1.RequestedAtAnnotation] != st.LastHandledTrigger {
		return true, 0
	}
	ready := meta.FindStatusCondition(st.Conditions, gitopsv1alpha1.ConditionReady)
	if ready == nil || ready.ObservedGeneration != obj.Generation || ready.Reason == gitopsv1alpha1.ReasonSyncFailed ||
		meta.IsStatusConditionTrue(st.Conditions, gitopsv1alpha1.ConditionStalled) {
		return true, 0
	}
	every := interval(obj)
	elapsed := now.Sub(st.LastSyncTime.Time)
	if elapsed >= every/2 {
		return true, 0
	}
	return false, every - elapsed
}
