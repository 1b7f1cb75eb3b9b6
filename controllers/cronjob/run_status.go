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
	"sync"
	"time"

	kbatchv1 "k8s.io/api/batch/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/types"

	batchv1 "github.com/siteops/siteops/apis/batch/v1"
)

// startedRuns lets the reconcile that starts a run leave its status write to the next reconcile, so that when
// many CronJobs fall due at once every Job is created before any of their statuses is written: a worker
// goes on to the next due CronJob after one API request instead of two. The create event of the Job wakes
// the CronJob again (behind the due ones in the work queue, see wakePriority), and that reconcile lists the
// Job and writes the same status: the Job in status.active, lastScheduleTime from its scheduled-time
// annotation. It also records the run's SuccessfulCreate event then, so the burst's events do not compete
// with its creates either. startedRuns remembers the scheduled time meanwhile, so a Job deleted before
// that reconcile (a fast run with ttlSecondsAfterFinished: 0) still counts as run and is not started
// twice. The zero value is ready to use.
type startedRuns struct {
	mu      sync.Mutex
	pending map[types.NamespacedName]startedRun
}

// startedRun is a run whose status is not written yet: its scheduled time and the Jobs to announce.
type startedRun struct {
	at   time.Time
	jobs []string
}

// leaveStatus reports whether the reconcile of key may leave its status write to the next one: it started
// job for the scheduled time at, and the status differs from the one it read (before) only by what that
// Job records. It then remembers at and the Job until a status with that lastScheduleTime is written.
func (p *startedRuns) leaveStatus(key types.NamespacedName, before, after *batchv1.CronJob, job *kbatchv1.Job,
	at time.Time) bool {
	if job == nil || !onlyRecordsRun(before, after, job) {
		return false
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.pending == nil {
		p.pending = map[types.NamespacedName]startedRun{}
	}
	run := p.pending[key]
	p.pending[key] = startedRun{at: at, jobs: append(run.jobs, job.Name)}
	return true
}

// lastStarted returns the scheduled time of the run started for key whose status is not written yet.
func (p *startedRuns) lastStarted(key types.NamespacedName) (time.Time, bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	run, ok := p.pending[key]
	return run.at, ok
}

// written forgets the started run of key once a status recording it (lastScheduleTime at or after its
// scheduled time) is stored, and returns the Jobs whose creation is now to be announced.
func (p *startedRuns) written(key types.NamespacedName, cj *batchv1.CronJob) []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	run, ok := p.pending[key]
	if !ok || cj.Status.LastScheduleTime == nil || cj.Status.LastScheduleTime.Time.Before(run.at) {
		return nil
	}
	delete(p.pending, key)
	return run.jobs
}

// forget drops key (the CronJob is gone).
func (p *startedRuns) forget(key types.NamespacedName) {
	p.mu.Lock()
	defer p.mu.Unlock()
	delete(p.pending, key)
}

// onlyRecordsRun reports whether after's status differs from before's only by the run of job: job last in
// status.active, lastScheduleTime, and the message of an unchanged Ready condition (its next run).
func onlyRecordsRun(before, after *batchv1.CronJob, job *kbatchv1.Job) bool {
	a, b := after.Status.DeepCopy(), &before.Status
	n := len(a.Active)
	if n != len(b.Active)+1 || a.Active[n-1].Name != job.Name {
		return false
	}
	a.Active = a.Active[:n-1]
	a.LastScheduleTime = b.LastScheduleTime
	ready := meta.FindStatusCondition(a.Conditions, batchv1.ConditionReady)
	was := meta.FindStatusCondition(b.Conditions, batchv1.ConditionReady)
	if ready != nil && was != nil && ready.Status == was.Status && ready.Reason == was.Reason {
		ready.Message = was.Message
	}
	return equality.Semantic.DeepEqual(a, b)
}
