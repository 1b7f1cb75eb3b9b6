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

package cronjob

import (
	"context"
	"fmt"

	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	batchv1 "github.com/siteops/siteops/apis/batch/v1"
)

// finalizeStatus sets the conditions that sum up the reconcile, Ready and Stalled, and observedGeneration.
func (r *Reconciler) finalizeStatus(s *scope) {
	cj := s.cj
	switch {
	case s.stalled != "":
		setCondition(s, batchv1.ConditionStalled, metav1.ConditionTrue, s.stalled, s.stalledMessage)
		setCondition(s, batchv1.ConditionReady, metav1.ConditionFalse, s.stalled, s.stalledMessage)
	case cj.Spec.Suspend != nil && *cj.Spec.Suspend:
		meta.RemoveStatusCondition(&cj.Status.Conditions, batchv1.ConditionStalled)
		setCondition(s, batchv1.ConditionReady, metav1.ConditionTrue, batchv1.ReasonSuspended,
			"Suspended: no new Jobs are started")
	case s.sched != nil:
		meta.RemoveStatusCondition(&cj.Status.Conditions, batchv1.ConditionStalled)
		msg := "Scheduling"
		if !s.plan.Next.IsZero() {
			msg = fmt.Sprintf("Next run at %s", s.plan.Next.UTC().Format(timeFormat))
		}
		setCondition(s, batchv1.ConditionReady, metav1.ConditionTrue, batchv1.ReasonScheduling, msg)
	}
	cj.Status.ObservedGeneration = cj.Generation
}

// setCondition sets a condition with the reconcile's clock as transition time (kept when the status does
// not change) and the generation it was computed for.
func setCondition(s *scope, ctype string, status metav1.ConditionStatus, reason, msg string) {
	meta.SetStatusCondition(&s.cj.Status.Conditions, metav1.Condition{
		Type: ctype, Status: status, Reason: reason, Message: msg,
		ObservedGeneration: s.cj.Generation, LastTransitionTime: metav1.NewTime(s.now),
	})
}

func hasCondition(cj *batchv1.CronJob, ctype string) bool {
	return meta.FindStatusCondition(cj.Status.Conditions, ctype) != nil
}

// patchStatus writes the status once, as a merge patch against the object as read, and only when it
// changed. A CronJob deleted meanwhile is not an error.
func (r *Reconciler) patchStatus(ctx context.Context, original, cj *batchv1.CronJob) error {
	if equality.Semantic.DeepEqual(original.Status, cj.Status) {
		return nil
	}
	if err := r.Status().Patch(ctx, cj, client.MergeFrom(original)); client.IgnoreNotFound(err) != nil {
		return fmt.Errorf("patching status of CronJob %s/%s: %w", cj.Namespace, cj.Name, err)
	}
	return nil
}
