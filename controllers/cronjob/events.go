package cronjob

import (
	batchv1 "github.com/siteops/siteops/apis/batch/v1"
	"github.com/siteops/siteops/controllers/internal/kit"
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
