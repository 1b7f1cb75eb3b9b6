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

	kbatchv1 "k8s.io/api/batch/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"sigs.k8s.io/controller-runtime/pkg/client"

	batchv1 "github.com/siteops/siteops/apis/batch/v1"
)

// reconcileHistory deletes the oldest finished Jobs beyond successfulJobsHistoryLimit and
// failedJobsHistoryLimit, so exactly that many of each are kept. Running Jobs are never touched.
func (r *Reconciler) reconcileHistory(ctx context.Context, s *scope) error {
	spec := s.cj.Spec
	prune := append(
		jobsBeyondLimit(s.jobs.succeeded, spec.SuccessfulJobsHistoryLimit, batchv1.DefaultSuccessfulJobsHistoryLimit),
		jobsBeyondLimit(s.jobs.failed, spec.FailedJobsHistoryLimit, batchv1.DefaultFailedJobsHistoryLimit)...)
	for _, job := range prune {
		if err := r.deleteJob(ctx, job); err != nil {
			r.events().Warning(s.cj, batchv1.ReasonFailedDelete, "Error deleting job %s: %v", job.Name, err)
			return err
		}
		r.events().Normal(s.cj, batchv1.ReasonSuccessfulDelete, "Deleted job %s", job.Name)
	}
	return nil
}

// jobsBeyondLimit returns the oldest of finished (sorted oldest first) that do not fit in the limit; a nil
// limit means the default.
func jobsBeyondLimit(finished []*kbatchv1.Job, limit *int32, def int32) []*kbatchv1.Job {
	keep := def
	if limit != nil {
		keep = max(*limit, 0)
	}
	if extra := len(finished) - int(keep); extra > 0 {
		return finished[:extra]
	}
	return nil
}

// deleteJob deletes a Job with background propagation, so its pods go with it; a Job already gone is fine.
func (r *Reconciler) deleteJob(ctx context.Context, job *kbatchv1.Job) error {
	if err := r.Delete(ctx, job, client.PropagationPolicy("Background")); err != nil && !apierrors.IsNotFound(err) {
		return fmt.Errorf("deleting Job %s/%s: %w", job.Namespace, job.Name, err)
	}
	return nil
}
