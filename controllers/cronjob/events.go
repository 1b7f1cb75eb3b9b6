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

// eventActions gives each event reason the action of events.k8s.io/v1 (what the controller did or tried).
var eventActions = map[string]string{
	batchv1.ReasonSuccessfulCreate:   "CreateJob",
	batchv1.ReasonFailedCreate:       "CreateJob",
	batchv1.ReasonAdoptedJob:         "AdoptJob",
	batchv1.ReasonSawCompletedJob:    "ObserveJob",
	batchv1.ReasonSuccessfulDelete:   "PruneHistory",
	batchv1.ReasonFailedDelete:       "DeleteJob",
	batchv1.ReasonJobReplaced:        "ReplaceJob",
	batchv1.ReasonJobAlreadyActive:   "SkipRun",
	batchv1.ReasonMissSchedule:       "Schedule",
	batchv1.ReasonTooManyMissedTimes: "Schedule",
	batchv1.ReasonInvalidSchedule:    "ParseSchedule",
	batchv1.ReasonUnknownTimeZone:    "ParseSchedule",

	// Failed Jobs, spec.catchUp and spec.lagObjectiveSeconds.
	batchv1.ReasonJobFailed:            "ObserveJob",
	batchv1.ReasonCatchingUp:           "Schedule",
	batchv1.ReasonLagObjectiveExceeded: "CreateJob",
}

// events records one Event per visible action of the controller; reasons are the constants in
// apis/batch/v1/conditions.go.
func (r *Reconciler) events() kit.Events {
	return kit.Events{Recorder: r.Recorder, Actions: eventActions}
}
