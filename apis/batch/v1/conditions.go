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

package v1

// Condition types of a CronJob. Ready, Reconciling and Stalled follow kstatus, so Argo CD and Flux read them.
const (
	// ConditionReady is True when the schedule is valid and the controller is scheduling (or the CronJob is
	// suspended on purpose); False with a reason otherwise. True is good.
	ConditionReady = "Ready"

	// ConditionReconciling is True while the controller retries after an error that may be transient (an API
	// error creating or deleting a Job); False otherwise. True asks for attention.
	ConditionReconciling = "Reconciling"

	// ConditionStalled is True when the controller cannot make progress until the spec changes: the schedule
	// does not parse or the time zone is unknown. It turns False once that is fixed. True is bad.
	ConditionStalled = "Stalled"

	// ConditionScheduleMissed is True when the last scheduling decision skipped at least one scheduled time
	// (the message gives the count), False with reason OnSchedule when the last due time was started on time.
	// True is bad; status.lastMissedTime keeps the latest missed time after the condition turns False.
	ConditionScheduleMissed = "ScheduleMissed"

	// ConditionScheduleLagging is True when the last run was created more than spec.lagObjectiveSeconds after
	// its (staggered) start time, False with reason WithinLagObjective once a later run is on time. Only set
	// when spec.lagObjectiveSeconds is. True is bad.
	ConditionScheduleLagging = "ScheduleLagging"
)

// Condition reasons (CamelCase, stable: alerts and dashboards match on them).
const (
	// ReasonScheduling (Ready=True): the schedule is valid and the next run is planned.
	ReasonScheduling = "Scheduling"
	// ReasonSuspended (Ready=True): spec.suspend is true; no new Jobs are started.
	ReasonSuspended = "Suspended"
	// ReasonOnSchedule (ScheduleMissed=False): nothing was missed at the last scheduling decision.
	ReasonOnSchedule = "OnSchedule"
	// ReasonMissedSchedules (ScheduleMissed=True): several times were due at once; only the most recent ran.
	ReasonMissedSchedules = "MissedSchedules"
	// ReasonDeadlineExceeded (ScheduleMissed=True): the most recent due time is older than
	// startingDeadlineSeconds, so it was not started.
	ReasonDeadlineExceeded = "DeadlineExceeded"
	// ReasonIdle (Reconciling=False, Stalled=False): nothing is being retried and nothing is stuck.
	ReasonIdle = "Idle"
	// ReasonReconcileError (Ready=False, Stalled=False): the last reconcile failed on an API error; it is
	// retried with backoff and the message carries the error.
	ReasonReconcileError = "ReconcileError"
	// ReasonRetrying (Reconciling=True): the controller retries after ReasonReconcileError.
	ReasonRetrying = "Retrying"
	// ReasonLagObjectiveExceeded (ScheduleLagging=True, also a Warning event): a run was created later than
	// spec.lagObjectiveSeconds after its start time.
	ReasonLagObjectiveExceeded = "LagObjectiveExceeded"
	// ReasonWithinLagObjective (ScheduleLagging=False): the last run was created within
	// spec.lagObjectiveSeconds of its start time.
	ReasonWithinLagObjective = "WithinLagObjective"
)

// Event reasons, one per visible action of the controller. Several are also condition reasons.
const (
	// ReasonSuccessfulCreate (Normal): a Job was created for a scheduled time.
	ReasonSuccessfulCreate = "SuccessfulCreate"
	// ReasonFailedCreate (Warning): creating a Job failed.
	ReasonFailedCreate = "FailedCreate"
	// ReasonSawCompletedJob (Normal): an active Job finished (succeeded or failed).
	ReasonSawCompletedJob = "SawCompletedJob"
	// ReasonSuccessfulDelete (Normal): a finished Job beyond the history limits was deleted.
	ReasonSuccessfulDelete = "SuccessfulDelete"
	// ReasonFailedDelete (Warning): deleting a Job failed.
	ReasonFailedDelete = "FailedDelete"
	// ReasonJobReplaced (Normal): concurrencyPolicy Replace deleted an active Job to start the new one.
	ReasonJobReplaced = "JobReplaced"
	// ReasonJobAlreadyActive (Normal): concurrencyPolicy Forbid skipped a run because a Job is still active.
	ReasonJobAlreadyActive = "JobAlreadyActive"
	// ReasonMissSchedule (Warning): a scheduled time was missed (too late for startingDeadlineSeconds, or
	// superseded by a later due time).
	ReasonMissSchedule = "MissSchedule"
	// ReasonTooManyMissedTimes (Warning, also ScheduleMissed=True): more than MaxMissedSchedules times were due
	// at once; the most recent one is run. Set or lower startingDeadlineSeconds, or check for clock skew.
	ReasonTooManyMissedTimes = "TooManyMissedTimes"
	// ReasonInvalidSchedule (Warning, also Stalled=True, Ready=False): spec.schedule does not parse.
	ReasonInvalidSchedule = "InvalidSchedule"
	// ReasonUnknownTimeZone (Warning, also Stalled=True, Ready=False): spec.timeZone is not a known zone.
	ReasonUnknownTimeZone = "UnknownTimeZone"
	// ReasonAdoptedJob (Normal): a Job with the deterministic name of a scheduled time already existed and was
	// taken as that time's run instead of creating a second one.
	ReasonAdoptedJob = "AdoptedJob"
	// ReasonJobFailed (Warning): an active Job failed; the message has the reason and message of its Failed
	// condition (BackoffLimitExceeded, DeadlineExceeded, ...). status.lastFailureTime records when.
	ReasonJobFailed = "JobFailed"
	// ReasonCatchingUp (Normal): spec.catchUp starts missed runs, oldest first; the message says which.
	ReasonCatchingUp = "CatchingUp"
)

// MaxMissedSchedules is the number of missed start times above which a TooManyMissedTimes warning is
// raised, as in Kubernetes' CronJob controller. The most recent time is still run.
const MaxMissedSchedules = 100

// Annotations and labels the controller puts on the Jobs it creates.
const (
	// ScheduledTimestampAnnotation holds the scheduled time (RFC 3339) of a Job, the annotation Kubernetes'
	// CronJob controller uses.
	ScheduledTimestampAnnotation = "batch.kubernetes.io/cronjob-scheduled-timestamp"
	// ScheduledAtAnnotation holds the scheduled time (RFC 3339) under the kubebuilder tutorial's key.
	ScheduledAtAnnotation = "batch.tutorial.kubebuilder.io/scheduled-at"
)
