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
	"sort"
	"time"

	kbatchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"
	"sigs.k8s.io/controller-runtime/pkg/log"

	batchv1 "github.com/siteops/siteops/apis/batch/v1"
	"github.com/siteops/siteops/internal/kit"
)

// jobSets are a CronJob's Jobs by state. Finished lists are sorted oldest first.
type jobSets struct {
	active, succeeded, failed []*kbatchv1.Job
}

// reconcileChildJobs lists the Jobs the CronJob controls (through the owner index), sorts them into active,
// succeeded and failed, and brings status.active, lastScheduleTime and lastSuccessfulTime up to date. A Job
// that was active and has finished gets a SawCompletedJob event. lastScheduleTime is also recovered from the
// newest Job's scheduled-time annotation, so a status patch lost in a crash does not start that time again.
func (r *Reconciler) reconcileChildJobs(ctx context.Context, s *scope) error {
	var list kbatchv1.JobList
	if err := r.List(ctx, &list, client.InNamespace(s.cj.Namespace),
		client.MatchingFields{jobOwnerKey: s.cj.Name}); err != nil {
		return fmt.Errorf("listing Jobs of CronJob %s/%s: %w", s.cj.Namespace, s.cj.Name, err)
	}
	s.jobs = classifyJobs(list.Items)
	st := &s.cj.Status
	st.Active = nil
	for _, job := range s.jobs.active {
		st.Active = append(st.Active, jobReference(job))
	}
	for _, job := range append(append([]*kbatchv1.Job{}, s.jobs.succeeded...), s.jobs.failed...) {
		if s.wasActive[job.Name] {
			ctype, _ := finishedCondition(job)
			r.events().Normal(s.cj, batchv1.ReasonSawCompletedJob,
				"Saw completed job: %s, condition: %s", job.Name, ctype)
		}
	}
	for _, job := range s.jobs.succeeded {
		ct := job.Status.CompletionTime
		if ct != nil && (st.LastSuccessfulTime == nil || ct.After(st.LastSuccessfulTime.Time)) {
			st.LastSuccessfulTime = ct.DeepCopy()
		}
	}
	r.recordFailures(s)
	for i := range list.Items {
		if at, ok := scheduledTime(&list.Items[i]); ok && (st.LastScheduleTime == nil || at.After(st.LastScheduleTime.Time)) {
			st.LastScheduleTime = &metav1.Time{Time: at}
		}
	}
	// A run started by an earlier reconcile that left its status to this one, its Job not listed (not in
	// the cache yet, or already deleted): it still ran.
	if at, ok := r.runs.lastStarted(s.key); ok && (st.LastScheduleTime == nil || at.After(st.LastScheduleTime.Time)) {
		st.LastScheduleTime = &metav1.Time{Time: at}
	}
	return nil
}

// classifyJobs sorts jobs into active, succeeded and failed; the finished ones oldest first (by scheduled
// time, then creation time, then name), which is the order history pruning deletes them in.
func classifyJobs(jobs []kbatchv1.Job) jobSets {
	var sets jobSets
	for i := range jobs {
		job := &jobs[i]
		switch ctype, finished := finishedCondition(job); {
		case !finished:
			sets.active = append(sets.active, job)
		case ctype == kbatchv1.JobComplete:
			sets.succeeded = append(sets.succeeded, job)
		default:
			sets.failed = append(sets.failed, job)
		}
	}
	sort.Slice(sets.active, func(i, j int) bool { return sets.active[i].Name < sets.active[j].Name })
	sortOldestFirst(sets.succeeded)
	sortOldestFirst(sets.failed)
	return sets
}

// finishedCondition returns Complete or Failed when the Job has that condition True, as Kubernetes' CronJob
// controller decides whether a Job is finished.
func finishedCondition(job *kbatchv1.Job) (kbatchv1.JobConditionType, bool) {
	for _, c := range job.Status.Conditions {
		if (c.Type == kbatchv1.JobComplete || c.Type == kbatchv1.JobFailed) && c.Status == corev1.ConditionTrue {
			return c.Type, true
		}
	}
	return "", false
}

func sortOldestFirst(jobs []*kbatchv1.Job) {
	sort.SliceStable(jobs, func(i, j int) bool {
		ti, iok := scheduledTime(jobs[i])
		tj, jok := scheduledTime(jobs[j])
		if !iok {
			ti = jobs[i].CreationTimestamp.Time
		}
		if !jok {
			tj = jobs[j].CreationTimestamp.Time
		}
		if !ti.Equal(tj) {
			return ti.Before(tj)
		}
		return jobs[i].Name < jobs[j].Name
	})
}

// scheduledTime reads the scheduled time a Job was created for from its annotations (Kubernetes' key first,
// then the tutorial's).
func scheduledTime(job *kbatchv1.Job) (time.Time, bool) {
	for _, key := range []string{batchv1.ScheduledTimestampAnnotation, batchv1.ScheduledAtAnnotation} {
		if v, ok := job.Annotations[key]; ok {
			if t, err := time.Parse(time.RFC3339, v); err == nil {
				return t, true
			}
		}
	}
	return time.Time{}, false
}

// jobReference is the status.active entry of a Job. It leaves out resourceVersion so status does not change
// every time the Job's status does.
func jobReference(job *kbatchv1.Job) corev1.ObjectReference {
	return corev1.ObjectReference{
		APIVersion: kbatchv1.SchemeGroupVersion.String(), Kind: "Job",
		Namespace: job.Namespace, Name: job.Name, UID: job.UID,
	}
}

// activeNames returns the names in status.active.
func activeNames(cj *batchv1.CronJob) map[string]bool {
	names := make(map[string]bool, len(cj.Status.Active))
	for _, ref := range cj.Status.Active {
		names[ref.Name] = true
	}
	return names
}

// JobName is the name of the Job for a scheduled time: the CronJob's name and the scheduled time in Unix
// minutes, as Kubernetes names them. The same time always gives the same name, so a restarted controller
// finds the Job it already created instead of starting a second one.
func JobName(cronJobName string, scheduled time.Time) string {
	return fmt.Sprintf("%s-%d", cronJobName, scheduled.Unix()/60)
}

// buildJob returns the Job for one scheduled time: the CronJob's template, its labels and annotations, the
// scheduled time in Kubernetes' and the tutorial's annotations, the CronJob's shard label (apis.ShardLabel) on
// the Job and its pod template, and the CronJob as controller.
func (r *Reconciler) buildJob(cj *batchv1.CronJob, scheduled time.Time) (*kbatchv1.Job, error) {
	tmpl := cj.Spec.JobTemplate
	job := &kbatchv1.Job{
		ObjectMeta: metav1.ObjectMeta{
			Name: JobName(cj.Name, scheduled), Namespace: cj.Namespace,
			Labels: map[string]string{}, Annotations: map[string]string{},
		},
		Spec: *tmpl.Spec.DeepCopy(),
	}
	for k, v := range tmpl.Labels {
		job.Labels[k] = v
	}
	for k, v := range tmpl.Annotations {
		job.Annotations[k] = v
	}
	// The Job and its pods are in the CronJob's shard: the manager that owns the CronJob caches its Jobs.
	job.Labels = kit.InheritShard(cj, job.Labels)
	job.Spec.Template.Labels = kit.InheritShard(cj, job.Spec.Template.Labels)
	at := scheduled.In(timeZoneLocation(cj)).Format(time.RFC3339)
	job.Annotations[batchv1.ScheduledTimestampAnnotation] = at
	job.Annotations[batchv1.ScheduledAtAnnotation] = at
	if tellsScheduledTime(cj) {
		setScheduledTimeEnv(job, at)
	}
	if err := controllerutil.SetControllerReference(cj, job, r.Scheme); err != nil {
		return nil, fmt.Errorf("setting the owner of Job %s: %w", job.Name, err)
	}
	return job, nil
}

// reconcileRun starts the Job for the planned time. A Job of that name that the CronJob already controls is
// taken as that run (a restart or a stale cache); an orphan of that name is adopted; one controlled by
// something else is an error.
func (r *Reconciler) reconcileRun(ctx context.Context, s *scope) error {
	at := s.plan.Run
	job, err := r.buildJob(s.cj, at)
	if err != nil {
		return err
	}
	switch err := r.Create(ctx, job); {
	case err == nil:
		s.started = job
		if r.othersWaiting() {
			s.announce = job.Name // with the status write (startedRuns)
		} else {
			r.announceCreated(s.cj, job.Name)
		}
		r.observeLag(s, at)
	case apierrors.IsAlreadyExists(err):
		if job, err = r.takeExisting(ctx, s.cj, job.Name); err != nil {
			return err
		}
	case apierrors.HasStatusCause(err, corev1.NamespaceTerminatingCause):
		// Refused on every retry until the CronJob is gone with its namespace: no event, as in Kubernetes.
		return fmt.Errorf("creating Job %s/%s: %w", job.Namespace, job.Name, err)
	default:
		r.events().Warning(s.cj, batchv1.ReasonFailedCreate, "Error creating job %s: %v", job.Name, err)
		return fmt.Errorf("creating Job %s/%s: %w", job.Namespace, job.Name, err)
	}
	log.FromContext(ctx).V(1).Info("started the scheduled run", "job", job.Name, "scheduledTime", at)
	s.cj.Status.LastScheduleTime = &metav1.Time{Time: at}
	catchUpStarted(s, at)
	if s.plan.Missed == 0 && s.plan.CatchUp == nil { // a catch-up run is not on schedule
		r.setOnSchedule(s)
	}
	if _, finished := finishedCondition(job); !finished && !s.wasListed(job.Name) {
		s.cj.Status.Active = append(s.cj.Status.Active, jobReference(job))
	}
	return nil
}

// announceCreated records the SuccessfulCreate event of a Job the CronJob started.
func (r *Reconciler) announceCreated(cj *batchv1.CronJob, job string) {
	r.events().Normal(cj, batchv1.ReasonSuccessfulCreate, "Created job %s", job)
}

// takeExisting handles a Job that already has the deterministic name of the run being started.
func (r *Reconciler) takeExisting(ctx context.Context, cj *batchv1.CronJob, name string) (*kbatchv1.Job, error) {
	existing := &kbatchv1.Job{}
	if err := r.Get(ctx, client.ObjectKey{Namespace: cj.Namespace, Name: name}, existing); err != nil {
		return nil, fmt.Errorf("reading existing Job %s/%s: %w", cj.Namespace, name, err)
	}
	if metav1.IsControlledBy(existing, cj) {
		return existing, nil
	}
	if owner := metav1.GetControllerOf(existing); owner != nil {
		r.events().Warning(cj, batchv1.ReasonFailedCreate,
			"Job %s already exists and is controlled by %s %s", name, owner.Kind, owner.Name)
		return nil, fmt.Errorf("job %s/%s exists and is controlled by %s %s", cj.Namespace, name, owner.Kind, owner.Name)
	}
	patch := client.MergeFrom(existing.DeepCopy())
	if err := controllerutil.SetControllerReference(cj, existing, r.Scheme); err != nil {
		return nil, fmt.Errorf("adopting Job %s/%s: %w", cj.Namespace, name, err)
	}
	if err := r.Patch(ctx, existing, patch); err != nil {
		return nil, fmt.Errorf("adopting Job %s/%s: %w", cj.Namespace, name, err)
	}
	r.events().Normal(cj, batchv1.ReasonAdoptedJob, "Adopted existing job %s", name)
	return existing, nil
}

// wasListed reports whether the Job is already among the active Jobs in status.
func (s *scope) wasListed(name string) bool {
	for _, ref := range s.cj.Status.Active {
		if ref.Name == name {
			return true
		}
	}
	return false
}
