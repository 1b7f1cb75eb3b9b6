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

	"sigs.k8s.io/controller-runtime/pkg/log"

	batchv1 "github.com/siteops/siteops/apis/batch/v1"
)

// reconcileConcurrency applies spec.concurrencyPolicy when a run is due while Jobs are active: Allow starts
// it alongside, Forbid skips it for now (the time stays due: when the active Job finishes, the run starts if
// startingDeadlineSeconds still allows, as in Kubernetes), and Replace deletes the active Jobs first.
func (r *Reconciler) reconcileConcurrency(ctx context.Context, s *scope) error {
	if s.plan.Run.IsZero() {
		s.Stop()
		return nil
	}
	if len(s.jobs.active) == 0 {
		return nil
	}
	switch s.cj.Spec.ConcurrencyPolicy {
	case batchv1.ForbidConcurrent:
		log.FromContext(ctx).V(1).Info("concurrency policy Forbid: a Job is still active, not starting",
			"scheduledTime", s.plan.Run, "active", len(s.jobs.active))
		r.events().Normal(s.cj, batchv1.ReasonJobAlreadyActive,
			"Not starting job for %s because a previous job is still running", s.plan.Run.UTC().Format(timeFormat))
		s.Stop()
	case batchv1.ReplaceConcurrent:
		for _, job := range s.jobs.active {
			if err := r.deleteJob(ctx, job); err != nil {
				r.events().Warning(s.cj, batchv1.ReasonFailedDelete, "Error deleting job %s: %v", job.Name, err)
				return err
			}
			r.events().Normal(s.cj, batchv1.ReasonJobReplaced,
				"Deleted active job %s to replace it with the run for %s", job.Name, s.plan.Run.UTC().Format(timeFormat))
		}
		s.jobs.active = nil
		s.cj.Status.Active = nil
	}
	return nil
}
