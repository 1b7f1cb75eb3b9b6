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
	batchv1 "github.com/siteops/siteops/apis/batch/v1"
	"github.com/siteops/siteops/internal/kit"
)

// eventAction gives each event reason the action of events.k8s.io/v1 (what the controller did or tried).
func eventAction(reason string) string {
	switch reason {
	case batchv1.ReasonSuccessfulCreate, batchv1.ReasonFailedCreate, batchv1.ReasonLagObjectiveExceeded:
		return "CreateJob"
	case batchv1.ReasonAdoptedJob:
		return "AdoptJob"
	case batchv1.ReasonSawCompletedJob, batchv1.ReasonJobFailed:
		return "ObserveJob"
	case batchv1.ReasonSuccessfulDelete:
		return "PruneHistory"
	case batchv1.ReasonFailedDelete:
		return "DeleteJob"
	case batchv1.ReasonJobReplaced:
		return "ReplaceJob"
	case batchv1.ReasonJobAlreadyActive:
		return "SkipRun"
	case batchv1.ReasonMissSchedule, batchv1.ReasonTooManyMissedTimes, batchv1.ReasonCatchingUp:
		return "Schedule"
	case batchv1.ReasonInvalidSchedule, batchv1.ReasonUnknownTimeZone:
		return "ParseSchedule"
	}
	return ""
}

// events records one Event per visible action of the controller; reasons are the constants in
// apis/batch/v1/conditions.go.
func (r *Reconciler) events() kit.Events {
	return kit.Events{Recorder: r.Recorder, Action: eventAction}
}
