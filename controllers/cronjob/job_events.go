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
	"maps"
	"slices"

	kbatchv1 "k8s.io/api/batch/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
)

// jobChangeMatters lets through the Job updates that can change what a CronJob's reconcile reads from its
// Jobs: whether the Job is finished and how (finishedCondition), its completion time, its annotations (the
// scheduled time), its owner references and its deletion. The job controller's updates in between
// (active, ready, pod counts, start time) do not wake the CronJob; Job creates and deletes always do.
func jobChangeMatters() predicate.Funcs {
	return predicate.Funcs{
		UpdateFunc: func(e event.UpdateEvent) bool {
			old, okOld := e.ObjectOld.(*kbatchv1.Job)
			cur, okCur := e.ObjectNew.(*kbatchv1.Job)
			return !okOld || !okCur || jobChanged(old, cur)
		},
	}
}

// jobChanged reports whether cur differs from old in anything the CronJob reconcile reads from a Job.
func jobChanged(old, cur *kbatchv1.Job) bool {
	oldType, oldDone := finishedCondition(old)
	curType, curDone := finishedCondition(cur)
	return oldType != curType || oldDone != curDone ||
		!equalTime(old.Status.CompletionTime, cur.Status.CompletionTime) ||
		!maps.Equal(old.Annotations, cur.Annotations) ||
		!slices.EqualFunc(old.OwnerReferences, cur.OwnerReferences, equalOwner) ||
		(old.DeletionTimestamp == nil) != (cur.DeletionTimestamp == nil)
}

// equalTime compares two optional times.
func equalTime(a, b *metav1.Time) bool {
	if a == nil || b == nil {
		return a == b
	}
	return a.Equal(b)
}

// equalOwner compares the parts of an owner reference the Job owner index reads.
func equalOwner(a, b metav1.OwnerReference) bool {
	return a.UID == b.UID && a.Name == b.Name && a.Kind == b.Kind &&
		(a.Controller != nil && *a.Controller) == (b.Controller != nil && *b.Controller)
}
