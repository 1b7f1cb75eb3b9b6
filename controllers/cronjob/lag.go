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
	"time"

	"k8s.io/apimachinery/pkg/api/meta"

	batchv1 "github.com/siteops/siteops/apis/batch/v1"
	"github.com/siteops/siteops/internal/kit"
)

// observeLag records how late the Job for the scheduled time at was created after its start time (at plus
// the stagger offset): in the schedule-lag histogram, and against spec.lagObjectiveSeconds in the
// ScheduleLagging condition, with a Warning event when the objective was exceeded.
func (r *Reconciler) observeLag(s *scope, at time.Time) {
	lag := s.now.Sub(at.Add(StartOffset(s.cj)))
	r.observer().ScheduleLag(lag)
	objective := s.cj.Spec.LagObjectiveSeconds
	if objective == nil {
		return
	}
	limit := time.Duration(*objective) * time.Second
	if lag <= limit {
		r.conditions().Set(s.cj, batchv1.ConditionScheduleLagging, *kit.False(batchv1.ReasonWithinLagObjective,
			fmt.Sprintf("The run for %s was created %s after its start time, within lagObjectiveSeconds (%ds)",
				at.UTC().Format(timeFormat), lag.Round(time.Millisecond), *objective)))
		return
	}
	msg := fmt.Sprintf("The run for %s was created %s after its start time, more than lagObjectiveSeconds (%ds)",
		at.UTC().Format(timeFormat), lag.Round(time.Millisecond), *objective)
	r.conditions().Set(s.cj, batchv1.ConditionScheduleLagging, *kit.True(batchv1.ReasonLagObjectiveExceeded, msg))
	r.events().Warning(s.cj, batchv1.ReasonLagObjectiveExceeded, "%s", msg)
}

// dropLagCondition removes ScheduleLagging from a CronJob without spec.lagObjectiveSeconds.
func dropLagCondition(s *scope) {
	if s.cj.Spec.LagObjectiveSeconds == nil {
		meta.RemoveStatusCondition(&s.cj.Status.Conditions, batchv1.ConditionScheduleLagging)
	}
}
