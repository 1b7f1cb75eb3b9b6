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
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/utils/ptr"
)

// MaxNameLength is the longest CronJob name: a Job is named <cronjob>-<unix minutes> (up to 11 more
// characters) and Job names become label values, which stop at 63.
const MaxNameLength = 52

// Defaults of the optional spec fields, also set by +kubebuilder:default markers so they apply without the
// webhook.
const (
	DefaultSuccessfulJobsHistoryLimit int32 = 3
	DefaultFailedJobsHistoryLimit     int32 = 1
)

// SetDefaults fills the optional spec fields a user left out: concurrencyPolicy Allow, suspend false,
// successfulJobsHistoryLimit 3, failedJobsHistoryLimit 1, and catchUp.maxRuns 1 when catchUp is set.
func SetDefaults(cj *CronJob) {
	s := &cj.Spec
	if s.ConcurrencyPolicy == "" {
		s.ConcurrencyPolicy = AllowConcurrent
	}
	if s.Suspend == nil {
		s.Suspend = ptr.To(false)
	}
	if s.SuccessfulJobsHistoryLimit == nil {
		s.SuccessfulJobsHistoryLimit = ptr.To(DefaultSuccessfulJobsHistoryLimit)
	}
	if s.FailedJobsHistoryLimit == nil {
		s.FailedJobsHistoryLimit = ptr.To(DefaultFailedJobsHistoryLimit)
	}
	setExtensionDefaults(s)
}

// ValidateCronJob checks everything the webhook enforces and returns every problem with its field path. It is
// a superset of the CRD's schema and CEL rules, so an object that passes here also passes the apiserver.
func ValidateCronJob(cj *CronJob) field.ErrorList {
	var errs field.ErrorList
	if len(cj.Name) > MaxNameLength {
		errs = append(errs, field.TooLong(field.NewPath("metadata", "name"), cj.Name, MaxNameLength))
	}
	spec := field.NewPath("spec")
	errs = append(errs, ValidateSchedule(cj.Spec.Schedule, cj.Spec.TimeZone, spec)...)
	if d := cj.Spec.StartingDeadlineSeconds; d != nil && *d < 0 {
		errs = append(errs, field.Invalid(spec.Child("startingDeadlineSeconds"), *d, "must be >= 0"))
	}
	switch cj.Spec.ConcurrencyPolicy {
	case "", AllowConcurrent, ForbidConcurrent, ReplaceConcurrent:
	default:
		errs = append(errs, field.NotSupported(spec.Child("concurrencyPolicy"), cj.Spec.ConcurrencyPolicy,
			[]ConcurrencyPolicy{AllowConcurrent, ForbidConcurrent, ReplaceConcurrent}))
	}
	if l := cj.Spec.SuccessfulJobsHistoryLimit; l != nil && *l < 0 {
		errs = append(errs, field.Invalid(spec.Child("successfulJobsHistoryLimit"), *l, "must be >= 0"))
	}
	if l := cj.Spec.FailedJobsHistoryLimit; l != nil && *l < 0 {
		errs = append(errs, field.Invalid(spec.Child("failedJobsHistoryLimit"), *l, "must be >= 0"))
	}
	errs = append(errs, validateExtensions(&cj.Spec, spec)...)
	return append(errs, validatePodTemplate(&cj.Spec.JobTemplate.Spec.Template.Spec,
		spec.Child("jobTemplate", "spec", "template", "spec"))...)
}

// validatePodTemplate checks what a Job needs of its pod template and the CronJob can see before creating one.
func validatePodTemplate(pod *corev1.PodSpec, path *field.Path) field.ErrorList {
	var errs field.ErrorList
	switch pod.RestartPolicy {
	case corev1.RestartPolicyOnFailure, corev1.RestartPolicyNever:
	default:
		errs = append(errs, field.NotSupported(path.Child("restartPolicy"), pod.RestartPolicy,
			[]corev1.RestartPolicy{corev1.RestartPolicyOnFailure, corev1.RestartPolicyNever}))
	}
	if len(pod.Containers) == 0 {
		errs = append(errs, field.Required(path.Child("containers"), "a Job needs at least one container"))
	}
	for i, c := range pod.Containers {
		if c.Name == "" {
			errs = append(errs, field.Required(path.Child("containers").Index(i).Child("name"), ""))
		}
		if c.Image == "" {
			errs = append(errs, field.Required(path.Child("containers").Index(i).Child("image"), ""))
		}
	}
	return errs
}
