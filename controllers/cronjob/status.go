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
	"fmt"

	"k8s.io/apimachinery/pkg/api/meta"

	batchv1 "github.com/siteops/siteops/apis/batch/v1"
	"github.com/siteops/siteops/internal/kit"
)

// conditions sets the CronJob's conditions with the reconciler's clock.
func (r *Reconciler) conditions() kit.Conditions {
	return kit.Conditions{Clock: r.clock(), Reasons: kit.Reasons{
		Idle: batchv1.ReasonIdle, Failed: batchv1.ReasonReconcileError, Retrying: batchv1.ReasonRetrying,
	}}
}

// summarize sets Ready, Reconciling and Stalled from how the reconcile ended, and observedGeneration.
func (r *Reconciler) summarize(s *scope, err error) {
	cj := s.cj
	out := kit.Outcome{Err: err}
	switch {
	case cj.Spec.Suspend != nil && *cj.Spec.Suspend:
		out.Ready = kit.True(batchv1.ReasonSuspended, "Suspended: no new Jobs are started")
	case s.sched != nil:
		msg := "Scheduling"
		if !s.plan.Next.IsZero() {
			msg = fmt.Sprintf("Next run at %s", s.plan.Next.UTC().Format(timeFormat))
		}
		out.Ready = kit.True(batchv1.ReasonScheduling, msg)
	}
	r.conditions().Summarize(cj, out)
	cj.Status.ObservedGeneration = cj.Generation
}

func hasCondition(cj *batchv1.CronJob, ctype string) bool {
	return meta.FindStatusCondition(cj.Status.Conditions, ctype) != nil
}
