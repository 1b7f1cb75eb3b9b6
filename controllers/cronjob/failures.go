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
	kbatchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	batchv1 "github.com/siteops/siteops/apis/batch/v1"
)

// recordFailures brings status.lastFailureTime up to date from the failed Jobs (when their Failed condition
// turned True) and records a JobFailed warning, with the reason and message of that condition, for each Job
// that was active and has failed.
func (r *Reconciler) recordFailures(s *scope) {
	st := &s.cj.Status
	for _, job := range s.jobs.failed {
		failed := failedCondition(job)
		if failed == nil {
			continue
		}
		if at := failed.LastTransitionTime; !at.IsZero() && (st.LastFailureTime == nil || at.After(st.LastFailureTime.Time)) {
			st.LastFailureTime = &metav1.Time{Time: at.Time}
		}
		if s.wasActive[job.Name] {
			r.events().Warning(s.cj, batchv1.ReasonJobFailed, "Job %s failed: %s: %s",
				job.Name, failed.Reason, failed.Message)
		}
	}
}

// failedCondition returns the Job's Failed condition when it is True, else nil.
func failedCondition(job *kbatchv1.Job) *kbatchv1.JobCondition {
	for i := range job.Status.Conditions {
		if c := &job.Status.Conditions[i]; c.Type == kbatchv1.JobFailed && c.Status == corev1.ConditionTrue {
			return c
		}
	}
	return nil
}
