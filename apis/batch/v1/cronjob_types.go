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

import (
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// The JSON field names below are those of the kubebuilder book's CronJob (batch.tutorial.kubebuilder.io/v1), so
// objects written for the tutorial are accepted unchanged; everything siteops adds is optional and additive.

// CronJobSpec defines the desired state of CronJob.
type CronJobSpec struct {
	// schedule in Cron format (five fields: minute hour day-of-month month day-of-week) or a descriptor such as
	// @hourly, @daily or "@every 15m" (whole minutes only). See https://en.wikipedia.org/wiki/Cron.
	// A CRON_TZ= or TZ= prefix is not accepted: set spec.timeZone instead.
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=256
	// +kubebuilder:validation:XValidation:rule="!self.contains('TZ=')",message="CRON_TZ= and TZ= are not supported in spec.schedule: set spec.timeZone instead"
	// +kubebuilder:validation:XValidation:rule="self.matches('^[ \\t]*(@[a-z]+([ \\t]+[0-9a-z.]+)?|[^ \\t]+([ \\t]+[^ \\t]+){4})[ \\t]*$')",message="spec.schedule must have five fields (minute hour day-of-month month day-of-week) or be a descriptor such as @hourly"
	Schedule string `json:"schedule"`

	// timeZone is the IANA name of the time zone the schedule is read in, e.g. "Europe/Berlin". Unset means
	// UTC. "Local" is not accepted: the controller's own zone is not something a user can see.
	// +optional
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=64
	// +kubebuilder:validation:XValidation:rule="self != 'Local'",message="spec.timeZone must be an explicit IANA time zone name, not Local"
	TimeZone *string `json:"timeZone,omitempty"`

	// startingDeadlineSeconds is how late, in seconds, a Job may still be started after its scheduled time.
	// A scheduled time missed by more than this counts as missed and is not run.
	// +optional
	// +kubebuilder:validation:Minimum=0
	// +kubebuilder:validation:XValidation:rule="self >= 0",message="spec.startingDeadlineSeconds must be >= 0"
	StartingDeadlineSeconds *int64 `json:"startingDeadlineSeconds,omitempty"`

	// concurrencyPolicy says what to do when a Job is due while an earlier one is still running:
	// Allow (default) runs them side by side, Forbid skips the new run, Replace deletes the running Job and
	// starts the new one.
	// +optional
	// +kubebuilder:default=Allow
	ConcurrencyPolicy ConcurrencyPolicy `json:"concurrencyPolicy,omitempty"`

	// suspend stops new runs; running Jobs are left alone. Defaults to false.
	// +optional
	// +kubebuilder:default=false
	Suspend *bool `json:"suspend,omitempty"`

	// jobTemplate is the Job created at each scheduled time. Its pod template's restartPolicy must be
	// OnFailure or Never, as for any Job.
	// +kubebuilder:validation:XValidation:rule="has(self.spec) && has(self.spec.template.spec) && has(self.spec.template.spec.restartPolicy) && self.spec.template.spec.restartPolicy in ['OnFailure', 'Never']",message="spec.jobTemplate.spec.template.spec.restartPolicy must be OnFailure or Never",fieldPath=".spec.template.spec.restartPolicy"
	// +kubebuilder:validation:XValidation:rule="!has(self.spec) || !has(self.spec.template.spec) || size(self.spec.template.spec.containers) > 0",message="spec.jobTemplate.spec.template.spec.containers must list at least one container",fieldPath=".spec.template.spec.containers"
	JobTemplate batchv1.JobTemplateSpec `json:"jobTemplate"`

	// successfulJobsHistoryLimit is how many finished successful Jobs are kept. Defaults to 3.
	// +optional
	// +kubebuilder:default=3
	// +kubebuilder:validation:Minimum=0
	// +kubebuilder:validation:XValidation:rule="self >= 0",message="spec.successfulJobsHistoryLimit must be >= 0"
	SuccessfulJobsHistoryLimit *int32 `json:"successfulJobsHistoryLimit,omitempty"`

	// failedJobsHistoryLimit is how many finished failed Jobs are kept. Defaults to 1.
	// +optional
	// +kubebuilder:default=1
	// +kubebuilder:validation:Minimum=0
	// +kubebuilder:validation:XValidation:rule="self >= 0",message="spec.failedJobsHistoryLimit must be >= 0"
	FailedJobsHistoryLimit *int32 `json:"failedJobsHistoryLimit,omitempty"`

	// spread staggers the runs: each run starts at its scheduled time plus an offset in [0, spread), derived
	// from the CronJob's UID, so it is the same for every run and on every controller replica. Hundreds of
	// CronJobs sharing a schedule then start spread over that window instead of in the same second. The Job's
	// name and its scheduled-time annotations still name the scheduled time, and startingDeadlineSeconds
	// counts from the staggered time. Must not exceed the shortest interval of the schedule. Unset or 0s
	// starts every run at its scheduled time.
	// +optional
	// +kubebuilder:validation:Type=string
	// +kubebuilder:validation:Pattern=`^(0|-?([0-9]+(\.[0-9]+)?(ns|us|µs|ms|s|m|h))+)$`
	// +kubebuilder:validation:MaxLength=32
	// +kubebuilder:validation:XValidation:rule="duration(self) >= duration('0s')",message="spec.spread must not be negative"
	Spread *metav1.Duration `json:"spread,omitempty"`

	// catchUp starts runs missed while the controller was not running (or the CronJob could not start
	// them), oldest first. Unset keeps Kubernetes' behaviour: only the most recent missed time is run.
	// +optional
	CatchUp *CatchUpPolicy `json:"catchUp,omitempty"`

	// lagObjectiveSeconds is how late, in seconds after its (staggered) start time, a run may be created
	// before the controller reports it: the ScheduleLagging condition turns True and a Warning event is
	// recorded. Unset reports nothing.
	// +optional
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:XValidation:rule="self >= 1",message="spec.lagObjectiveSeconds must be at least 1"
	LagObjectiveSeconds *int64 `json:"lagObjectiveSeconds,omitempty"`
}

// CatchUpPolicy says how many missed runs are started after the controller was away.
type CatchUpPolicy struct {
	// maxRuns is how many of the missed runs still within startingDeadlineSeconds are started, oldest
	// first, one after the other; newer missed times beyond it are given up. Each Job is told the time it
	// was scheduled for (annotations and the SITEOPS_SCHEDULED_TIME environment variable). Defaults to 1,
	// at most 100.
	// +optional
	// +kubebuilder:default=1
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=100
	// +kubebuilder:validation:XValidation:rule="self >= 1 && self <= 100",message="spec.catchUp.maxRuns must be between 1 and 100"
	MaxRuns *int32 `json:"maxRuns,omitempty"`
}

// ConcurrencyPolicy describes how the Job will be handled.
// Only one of the following concurrent policies may be specified.
// If none of the following policies is specified, the default one
// is AllowConcurrent.
// +kubebuilder:validation:Enum=Allow;Forbid;Replace
type ConcurrencyPolicy string

const (
	// AllowConcurrent allows CronJobs to run concurrently.
	AllowConcurrent ConcurrencyPolicy = "Allow"

	// ForbidConcurrent forbids concurrent runs, skipping next run if previous
	// hasn't finished yet.
	ForbidConcurrent ConcurrencyPolicy = "Forbid"

	// ReplaceConcurrent cancels currently running job and replaces it with a new one.
	ReplaceConcurrent ConcurrencyPolicy = "Replace"
)

// CronJobStatus defines the observed state of CronJob.
type CronJobStatus struct {
	// active lists the Jobs of this CronJob that are still running.
	// +optional
	// +listType=atomic
	Active []corev1.ObjectReference `json:"active,omitempty"`

	// lastScheduleTime is the scheduled time of the last Job that was started.
	// +optional
	LastScheduleTime *metav1.Time `json:"lastScheduleTime,omitempty"`

	// lastSuccessfulTime is when the last Job that succeeded completed.
	// +optional
	LastSuccessfulTime *metav1.Time `json:"lastSuccessfulTime,omitempty"`

	// lastFailureTime is when the last Job that failed got its Failed condition.
	// +optional
	LastFailureTime *metav1.Time `json:"lastFailureTime,omitempty"`

	// lastMissedTime is the latest scheduled time that was not run: skipped because a later time was also due,
	// started too late for startingDeadlineSeconds, or skipped by concurrencyPolicy Forbid.
	// +optional
	LastMissedTime *metav1.Time `json:"lastMissedTime,omitempty"`

	// catchUp is the catch-up in progress (spec.catchUp): the scheduled times from..until still to be
	// started, oldest first, each if startingDeadlineSeconds still allows. Unset when none is in progress.
	// +optional
	CatchUp *CatchUpStatus `json:"catchUp,omitempty"`

	// observedGeneration is the metadata.generation the status was last computed for.
	// +optional
	ObservedGeneration int64 `json:"observedGeneration,omitempty"`

	// conditions: Ready, Stalled, ScheduleMissed and ScheduleLagging (see conditions.go for their reasons).
	// +optional
	// +listType=map
	// +listMapKey=type
	// +patchStrategy=merge
	// +patchMergeKey=type
	Conditions []metav1.Condition `json:"conditions,omitempty" patchStrategy:"merge" patchMergeKey:"type"`
}

// CatchUpStatus is a catch-up in progress: which missed scheduled times are still to be started.
type CatchUpStatus struct {
	// from is the oldest scheduled time of the catch-up.
	From metav1.Time `json:"from"`
	// until is the newest scheduled time of the catch-up; the catch-up ends once it has started or is past
	// startingDeadlineSeconds.
	Until metav1.Time `json:"until"`
}

// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
// +kubebuilder:resource:shortName=tcj;tcjs,categories=siteops
// +kubebuilder:validation:XValidation:rule="self.metadata.name.size() <= 52",message="metadata.name must be no more than 52 characters (a Job name adds a suffix of up to 11)"
// +kubebuilder:printcolumn:name="Schedule",type=string,JSONPath=`.spec.schedule`
// +kubebuilder:printcolumn:name="TimeZone",type=string,JSONPath=`.spec.timeZone`
// +kubebuilder:printcolumn:name="Suspend",type=boolean,JSONPath=`.spec.suspend`
// +kubebuilder:printcolumn:name="Active",type=string,JSONPath=`.status.active[*].name`
// +kubebuilder:printcolumn:name="Last Schedule",type=date,JSONPath=`.status.lastScheduleTime`
// +kubebuilder:printcolumn:name="Ready",type=string,JSONPath=`.status.conditions[?(@.type=="Ready")].status`,priority=1
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=`.metadata.creationTimestamp`

// CronJob is the Schema for the cronjobs API: a Job run on a cron schedule, as in the kubebuilder book, with
// Kubernetes' own CronJob behaviour (time zones, most-recent-run after missed starts, deterministic Job names).
type CronJob struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec   CronJobSpec   `json:"spec,omitempty"`
	Status CronJobStatus `json:"status,omitempty"`
}

// +kubebuilder:object:root=true

// CronJobList contains a list of CronJob.
type CronJobList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []CronJob `json:"items"`
}
