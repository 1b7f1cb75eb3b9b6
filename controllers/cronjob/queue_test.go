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
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/controller/priorityqueue"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	batchv1 "github.com/siteops/siteops/apis/batch/v1"
)

// TestCreatedCronJobQueuesWithTheDueOnes drives the CronJob watch's handlers into controller-runtime's
// priority queue: a CronJob created or edited while the controller runs is served among the wake-ups, in
// the order they came, ahead of watch events; one from the initial list comes last; a status-only update
// reaches the queue only through the default handler.
func TestCreatedCronJobQueuesWithTheDueOnes(t *testing.T) {
	ctx := context.Background()
	q := priorityqueue.New[reconcile.Request]("test")
	defer q.ShutDown()
	cronJob := func(name string, generation int64) *batchv1.CronJob {
		return &batchv1.CronJob{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: name, Generation: generation}}
	}
	wake := func(name string) {
		q.AddWithOpts(priorityqueue.AddOpts{Priority: ptr.To(wakePriority)}, reconcile.Request{
			NamespacedName: types.NamespacedName{Namespace: "ns", Name: name}})
	}

	wake("due-1")
	q.Add(reconcile.Request{NamespacedName: types.NamespacedName{Namespace: "ns", Name: "job-event"}})
	specChanges().Create(ctx, event.CreateEvent{Object: cronJob("listed", 1), IsInInitialList: true}, q)
	specChanges().Create(ctx, event.CreateEvent{Object: cronJob("created", 1)}, q)
	specChanges().Update(ctx, event.UpdateEvent{ObjectOld: cronJob("edited", 1), ObjectNew: cronJob("edited", 2)}, q)
	specChanges().Update(ctx, event.UpdateEvent{ObjectOld: cronJob("status-only", 1), ObjectNew: cronJob("status-only",
		1)}, q)
	wake("due-2")

	want := []string{"due-1", "created", "edited", "due-2", "job-event", "listed"}
	if n := q.Len(); n != len(want) {
		t.Fatalf("queue holds %d requests, want %d (%v)", n, len(want), want)
	}
	for i, name := range want {
		req, _ := q.Get()
		if req.Name != name {
			t.Fatalf("request %d is %s, want %s (order %v)", i, req.Name, name, want)
		}
		q.Done(req)
	}
}

// TestCronJobWatchLeavesSpecChangesToTheirHandler checks that the default handler gets every other event, so
// each event is enqueued exactly once.
func TestCronJobWatchLeavesSpecChangesToTheirHandler(t *testing.T) {
	old := &batchv1.CronJob{ObjectMeta: metav1.ObjectMeta{Name: "a", Generation: 1}}
	edited := &batchv1.CronJob{ObjectMeta: metav1.ObjectMeta{Name: "a", Generation: 2}}
	for _, c := range []struct {
		name string
		got  bool
		want bool
	}{
		{"create", notSpecChanges().Create(event.CreateEvent{Object: old}), false},
		{"create from the initial list", notSpecChanges().Create(event.CreateEvent{Object: old, IsInInitialList: true}),
			false},
		{"spec update", notSpecChanges().Update(event.UpdateEvent{ObjectOld: old, ObjectNew: edited}), false},
		{"status update", notSpecChanges().Update(event.UpdateEvent{ObjectOld: old, ObjectNew: old.DeepCopy()}), true},
		{"delete", notSpecChanges().Delete(event.DeleteEvent{Object: old}), true},
	} {
		if c.got != c.want {
			t.Errorf("%s: default handler gets it = %v, want %v", c.name, c.got, c.want)
		}
	}
}
