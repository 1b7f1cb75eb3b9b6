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
	"testing"
	"time"

	. "github.com/onsi/gomega"
	kbatchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	batchv1 "github.com/siteops/siteops/apis/batch/v1"
)

// fakeJob is a Job scheduled at minute m past 10:00 with the given finished condition ("" = running).
func fakeJob(name string, m int, cond kbatchv1.JobConditionType) kbatchv1.Job {
	at := utc(2026, 11, 30, 10, m, 0).Format(time.RFC3339)
	job := kbatchv1.Job{ObjectMeta: metav1.ObjectMeta{
		Name: name, Annotations: map[string]string{batchv1.ScheduledTimestampAnnotation: at},
	}}
	if cond != "" {
		job.Status.Conditions = []kbatchv1.JobCondition{{Type: cond, Status: corev1.ConditionTrue}}
	}
	return job
}

func names(jobs []*kbatchv1.Job) []string {
	out := []string{}
	for _, j := range jobs {
		out = append(out, j.Name)
	}
	return out
}

// TestClassifyJobs sorts Jobs into active, succeeded and failed, the finished ones oldest scheduled first.
func TestClassifyJobs(t *testing.T) {
	g := NewWithT(t)
	suspended := fakeJob("suspended", 9, "")
	suspended.Status.Conditions = []kbatchv1.JobCondition{{Type: kbatchv1.JobSuspended, Status: corev1.ConditionTrue}}
	notYet := fakeJob("complete-false", 8, "")
	notYet.Status.Conditions = []kbatchv1.JobCondition{{Type: kbatchv1.JobComplete, Status: corev1.ConditionFalse}}
	sets := classifyJobs([]kbatchv1.Job{
		fakeJob("ok-5", 5, kbatchv1.JobComplete), fakeJob("run-7", 7, ""), fakeJob("bad-4", 4, kbatchv1.JobFailed),
		fakeJob("ok-1", 1, kbatchv1.JobComplete), suspended, fakeJob("bad-2", 2, kbatchv1.JobFailed),
		fakeJob("ok-3", 3, kbatchv1.JobComplete), notYet,
	})
	g.Expect(names(sets.active)).To(Equal([]string{"complete-false", "run-7", "suspended"}))
	g.Expect(names(sets.succeeded)).To(Equal([]string{"ok-1", "ok-3", "ok-5"}))
	g.Expect(names(sets.failed)).To(Equal([]string{"bad-2", "bad-4"}))
}

// TestJobsBeyondLimit keeps exactly the limit of the newest finished Jobs.
func TestJobsBeyondLimit(t *testing.T) {
	jobs := []kbatchv1.Job{
		fakeJob("a", 1, kbatchv1.JobComplete), fakeJob("b", 2, kbatchv1.JobComplete),
		fakeJob("c", 3, kbatchv1.JobComplete), fakeJob("d", 4, kbatchv1.JobComplete), fakeJob("e", 5, kbatchv1.JobComplete),
	}
	finished := classifyJobs(jobs).succeeded
	tests := []struct {
		name  string
		limit *int32
		want  []string
	}{
		{"limit 0 deletes all", ptr.To[int32](0), []string{"a", "b", "c", "d", "e"}},
		{"limit 2 keeps the two newest", ptr.To[int32](2), []string{"a", "b", "c"}},
		{"nil uses the default of 3", nil, []string{"a", "b"}},
		{"limit equal to the count deletes none", ptr.To[int32](5), []string{}},
		{"limit above the count deletes none", ptr.To[int32](10), []string{}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := jobsBeyondLimit(finished, tc.limit, batchv1.DefaultSuccessfulJobsHistoryLimit)
			NewWithT(t).Expect(names(got)).To(Equal(tc.want))
		})
	}
}

// TestJobName is deterministic per scheduled minute and stays within 63 characters for the longest name.
func TestJobName(t *testing.T) {
	g := NewWithT(t)
	at := utc(2026, 11, 30, 10, 5, 0)
	g.Expect(JobName("hello", at)).To(Equal("hello-29933885")) // 2026-11-30T10:05:00Z is 1796033100 s = 29933885 min
	g.Expect(JobName("hello", at.Add(59*time.Second))).To(Equal(JobName("hello", at)))
	g.Expect(JobName("hello", at.Add(time.Minute))).To(Equal("hello-29933886"))
	long := string(make([]byte, batchv1.MaxNameLength))
	g.Expect(len(JobName(long, utc(9999, 12, 31, 23, 59, 0)))).To(BeNumerically("<=", 63))
}
