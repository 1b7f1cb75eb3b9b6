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

	kbatchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
)

// TestJobChangedIgnoresProgressAndSeesWhatReconcileReads: the job controller's progress updates (active,
// ready, start time, pod counts, SuccessCriteriaMet) do not wake the CronJob; finishing, the completion
// time, annotations, owner references and deletion do.
func TestJobChangedIgnoresProgressAndSeesWhatReconcileReads(t *testing.T) {
	base := func() *kbatchv1.Job {
		return &kbatchv1.Job{ObjectMeta: metav1.ObjectMeta{Name: "cj-1", Annotations: map[string]string{"a": "1"},
			OwnerReferences: []metav1.OwnerReference{{Kind: "CronJob", Name: "cj", UID: "u1", Controller: ptr.To(true)}}}}
	}
	now := metav1.NewTime(time.Unix(1_800_000_000, 0))
	cases := []struct {
		name   string
		change func(*kbatchv1.Job)
		want   bool
	}{
		{"active and start time", func(j *kbatchv1.Job) { j.Status.Active, j.Status.StartTime = 1, &now }, false},
		{"ready pod", func(j *kbatchv1.Job) { j.Status.Ready = ptr.To[int32](1) }, false},
		{"pod counted", func(j *kbatchv1.Job) {
			j.Status.Succeeded = 1
			j.Status.UncountedTerminatedPods = &kbatchv1.UncountedTerminatedPods{}
		}, false},
		{"SuccessCriteriaMet", func(j *kbatchv1.Job) {
			j.Status.Conditions = []kbatchv1.JobCondition{{Type: kbatchv1.JobSuccessCriteriaMet, Status: corev1.ConditionTrue}}
		}, false},
		{"Complete", func(j *kbatchv1.Job) {
			j.Status.Conditions = []kbatchv1.JobCondition{{Type: kbatchv1.JobComplete, Status: corev1.ConditionTrue}}
		}, true},
		{"Failed", func(j *kbatchv1.Job) {
			j.Status.Conditions = []kbatchv1.JobCondition{{Type: kbatchv1.JobFailed, Status: corev1.ConditionTrue}}
		}, true},
		{"completion time", func(j *kbatchv1.Job) { j.Status.CompletionTime = &now }, true},
		{"annotation", func(j *kbatchv1.Job) { j.Annotations["a"] = "2" }, true},
		{"owner released", func(j *kbatchv1.Job) { j.OwnerReferences = nil }, true},
		{"controller flag", func(j *kbatchv1.Job) { j.OwnerReferences[0].Controller = nil }, true},
		{"being deleted", func(j *kbatchv1.Job) { j.DeletionTimestamp = &now }, true},
	}
	for _, c := range cases {
		cur := base()
		c.change(cur)
		if got := jobChanged(base(), cur); got != c.want {
			t.Errorf("%s: jobChanged = %t, want %t", c.name, got, c.want)
		}
	}
	if jobChanged(base(), base()) {
		t.Error("an identical Job counts as changed")
	}
}
