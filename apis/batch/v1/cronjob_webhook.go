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
	"context"
	"fmt"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/webhook/admission"
)

// +kubebuilder:webhook:path=/mutate-batch-tutorial-kubebuilder-io-v1-cronjob,mutating=true,failurePolicy=fail,sideEffects=None,groups=batch.tutorial.kubebuilder.io,resources=cronjobs,verbs=create;update,versions=v1,name=mcronjob-v1.siteops.dev,admissionReviewVersions=v1
// +kubebuilder:webhook:path=/validate-batch-tutorial-kubebuilder-io-v1-cronjob,mutating=false,failurePolicy=fail,sideEffects=None,groups=batch.tutorial.kubebuilder.io,resources=cronjobs,verbs=create;update,versions=v1,name=vcronjob-v1.siteops.dev,admissionReviewVersions=v1

// SetupCronJobWebhookWithManager registers the CronJob defaulting and validating webhooks with the manager's
// webhook server.
func SetupCronJobWebhookWithManager(mgr ctrl.Manager) error {
	if err := ctrl.NewWebhookManagedBy(mgr, &CronJob{}).
		WithDefaulter(CronJobDefaulter{}).
		WithValidator(CronJobValidator{}).
		Complete(); err != nil {
		return fmt.Errorf("registering CronJob webhooks: %w", err)
	}
	return nil
}

// CronJobDefaulter sets the defaults of SetDefaults on create and update.
type CronJobDefaulter struct{}

var _ admission.Defaulter[*CronJob] = CronJobDefaulter{}

// Default implements admission.Defaulter.
func (CronJobDefaulter) Default(_ context.Context, cj *CronJob) error {
	SetDefaults(cj)
	return nil
}

// CronJobValidator rejects CronJobs that ValidateCronJob finds wrong, with a field path in every error.
type CronJobValidator struct{}

var _ admission.Validator[*CronJob] = CronJobValidator{}

// ValidateCreate implements admission.Validator.
func (CronJobValidator) ValidateCreate(_ context.Context, cj *CronJob) (admission.Warnings, error) {
	return nil, invalid(cj)
}

// ValidateUpdate implements admission.Validator.
func (CronJobValidator) ValidateUpdate(_ context.Context, _, cj *CronJob) (admission.Warnings, error) {
	return nil, invalid(cj)
}

// ValidateDelete implements admission.Validator; deleting is always allowed.
func (CronJobValidator) ValidateDelete(context.Context, *CronJob) (admission.Warnings, error) {
	return nil, nil
}

// invalid returns an Invalid status error listing every problem of cj, or nil.
func invalid(cj *CronJob) error {
	errs := ValidateCronJob(cj)
	if len(errs) == 0 {
		return nil
	}
	return apierrors.NewInvalid(GroupVersion.WithKind("CronJob").GroupKind(), cj.Name, errs)
}
