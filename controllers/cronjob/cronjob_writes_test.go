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
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	. "github.com/onsi/gomega"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/tools/events"
	"k8s.io/client-go/util/workqueue"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/controller/priorityqueue"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	batchv1 "github.com/siteops/siteops/apis/batch/v1"
)

// TestWritesPerRun runs the controller as the manager runs it (cache, watch events, work queue) over five
// scheduled minutes of a `*/1` CronJob whose Jobs each finish before the next minute, and counts every API
// write it sends. Each run costs one Job create, one status write when it starts and one when it finishes,
// and the SuccessfulCreate and SawCompletedJob events, as Kubernetes' CronJob controller writes; the
// reconciles that the controller's own writes bring (the Job's create event, the CronJob's update event,
// the Job a history limit deletes) send nothing. The history limit (3) deletes the two oldest Jobs.
func TestWritesPerRun(t *testing.T) {
	h := newHarness(t, t0.Add(10*time.Second))
	h.createScheduledAt("counted", t0, nil)
	w := &writeCounter{}
	_, stop, settle := h.startCountingManager(w, 0)
	defer stop()
	key := types.NamespacedName{Namespace: h.ns, Name: "counted"}
	h.g.Eventually(func() *batchv1.CronJob { return h.get("counted") }).WithTimeout(20 * time.Second).
		Should(WithTransform(func(cj *batchv1.CronJob) bool { return condition(cj, batchv1.ConditionReady) != nil },
			BeTrue()))
	settle("counted")
	w.reset()
	h.drainEvents()

	const runs = 5
	for m := 1; m <= runs; m++ {
		at := t0.Add(time.Duration(m) * time.Minute)
		h.clock.SetTime(at.Add(time.Second))
		// The manager's work queue waits in real time for the fake clock's next minute; a metadata change
		// (not counted: the test writes it) wakes the CronJob now.
		h.update("counted", func(cj *batchv1.CronJob) {
			cj.Annotations = map[string]string{"test.siteops.dev/minute": fmt.Sprint(m)}
		})
		h.g.Eventually(func(g Gomega) {
			cj := h.get("counted")
			g.Expect(cj.Status.Active).To(HaveLen(1))
			g.Expect(cj.Status.Active[0].Name).To(Equal(JobName("counted", at)))
		}).WithTimeout(20*time.Second).WithPolling(20*time.Millisecond).Should(Succeed(), "run %d started", m)
		settle("counted")
		h.finish(JobName("counted", at), true, at.Add(20*time.Second))
		h.g.Eventually(func(g Gomega) {
			cj := h.get("counted")
			g.Expect(cj.Status.Active).To(BeEmpty())
			g.Expect(cj.Status.LastSuccessfulTime.Time).To(BeTemporally("==", at.Add(20*time.Second)))
		}).WithTimeout(20*time.Second).WithPolling(20*time.Millisecond).Should(Succeed(), "run %d finished", m)
		settle("counted")
	}

	h.g.Expect(w.counts()).To(Equal(map[string]int{
		"create Job": runs, "write status CronJob": 2 * runs, "delete Job": runs - 3,
	}), "writes of %s over %d runs", key, runs)
	byReason := map[string]int{}
	for _, e := range h.drainEvents() {
		byReason[strings.Fields(e)[1]]++
	}
	h.g.Expect(byReason).To(Equal(map[string]int{
		batchv1.ReasonSuccessfulCreate: runs, batchv1.ReasonSawCompletedJob: runs, batchv1.ReasonSuccessfulDelete: runs - 3,
	}))
	h.g.Expect(len(h.jobs())).To(Equal(3))
}

// writeCounter counts a client's writes by verb and kind, and keeps them in order.
type writeCounter struct {
	mu  sync.Mutex
	n   map[string]int
	seq []string // "verb Kind name"
}

func (w *writeCounter) add(verb string, obj client.Object) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.n == nil {
		w.n = map[string]int{}
	}
	// The kind the request names: a status patch is sent as metadata only (kit.PatchStatus).
	kind := obj.GetObjectKind().GroupVersionKind().Kind
	if kind == "" {
		kind = fmt.Sprintf("%T", obj)
		kind = kind[strings.LastIndexByte(kind, '.')+1:]
	}
	w.n[verb+" "+kind]++
	w.seq = append(w.seq, verb+" "+kind+" "+obj.GetName())
}

func (w *writeCounter) reset() {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.n, w.seq = nil, nil
}

func (w *writeCounter) sequence() []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return append([]string{}, w.seq...)
}

func (w *writeCounter) counts() map[string]int {
	w.mu.Lock()
	defer w.mu.Unlock()
	out := map[string]int{}
	for k, v := range w.n {
		out[k] = v
	}
	return out
}

// interceptor returns the client funcs that count each write and pass it on.
func (w *writeCounter) interceptor() interceptor.Funcs {
	return interceptor.Funcs{
		Create: func(ctx context.Context, c client.WithWatch, obj client.Object, opts ...client.CreateOption) error {
			w.add("create", obj)
			return c.Create(ctx, obj, opts...)
		},
		Update: func(ctx context.Context, c client.WithWatch, obj client.Object, opts ...client.UpdateOption) error {
			w.add("update", obj)
			return c.Update(ctx, obj, opts...)
		},
		Patch: func(ctx context.Context, c client.WithWatch, obj client.Object, p client.Patch,
			opts ...client.PatchOption) error {
			w.add("patch", obj)
			return c.Patch(ctx, obj, p, opts...)
		},
		Delete: func(ctx context.Context, c client.WithWatch, obj client.Object, opts ...client.DeleteOption) error {
			w.add("delete", obj)
			return c.Delete(ctx, obj, opts...)
		},
		SubResourceUpdate: func(ctx context.Context, c client.Client, sub string, obj client.Object,
			opts ...client.SubResourceUpdateOption) error {
			w.add("write "+sub, obj)
			return c.SubResource(sub).Update(ctx, obj, opts...)
		},
		SubResourcePatch: func(ctx context.Context, c client.Client, sub string, obj client.Object, p client.Patch,
			opts ...client.SubResourcePatchOption) error {
			w.add("write "+sub, obj)
			return c.SubResource(sub).Patch(ctx, obj, p, opts...)
		},
	}
}

// countingManager is a manager running the CronJob controller with the harness' clock and recorder, its
// writes counted.
type countingManager struct {
	h        *harness
	queue    atomic.Pointer[priorityqueue.PriorityQueue[reconcile.Request]]
	inFlight atomic.Int32
	// pause, held for writing, keeps the workers from starting a reconcile; paused counts the reconciles
	// held there (taken from the queue, not started).
	pause  sync.RWMutex
	paused atomic.Int32
}

// hold keeps the workers from starting reconciles until release is called (release may be called again).
func (m *countingManager) hold() (release func()) {
	m.pause.Lock()
	var once sync.Once
	return func() { once.Do(m.pause.Unlock) }
}

// queued is how many CronJobs are ready in the controller's work queue.
func (m *countingManager) queued() int {
	q := m.queue.Load()
	if q == nil {
		return -1
	}
	return (*q).Len()
}

// startCountingManager starts a manager running the CronJob controller with workers workers, the harness'
// clock and recorder, its writes counted by w. settle waits until the controller has nothing left to do
// for the CronJob: the cache shows the apiserver's CronJob and Jobs, no reconcile is running and none is
// ready in the work queue, three checks in a row (a watch event reaches the queue just after the cache).
func (h *harness) startCountingManager(w *writeCounter, workers int) (m *countingManager, stop func(),
	settle func(name string)) {
	h.t.Helper()
	mgr, err := newManager(h.ns)
	h.g.Expect(err).NotTo(HaveOccurred())
	m = &countingManager{h: h}
	queue, inFlight := &m.queue, &m.inFlight
	r := &Reconciler{Client: interceptor.NewClient(noWatch{mgr.GetClient()}, w.interceptor()),
		Scheme: mgr.GetScheme(), Recorder: sequencedRecorder{h.events, w}, Clock: h.clock, Workers: workers}
	r.Complete = func(b *builder.Builder, opts controller.Options, _ client.ObjectList, rec reconcile.Reconciler) error {
		newQueue := opts.NewQueue
		opts.NewQueue = func(name string,
			rl workqueue.TypedRateLimiter[reconcile.Request]) workqueue.TypedRateLimitingInterface[reconcile.Request] {
			q := newQueue(name, rl).(priorityqueue.PriorityQueue[reconcile.Request])
			queue.Store(&q)
			return q
		}
		return b.WithOptions(opts).Complete(reconcile.Func(func(ctx context.Context,
			req reconcile.Request) (reconcile.Result, error) {
			m.paused.Add(1)
			m.pause.RLock()
			m.paused.Add(-1)
			defer m.pause.RUnlock()
			inFlight.Add(1)
			defer inFlight.Add(-1)
			return rec.Reconcile(ctx, req)
		}))
	}
	h.g.Expect(r.SetupWithManager(mgr)).To(Succeed())
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- mgr.Start(ctx) }()
	stop = func() {
		cancel()
		h.g.Expect(<-done).To(Succeed())
	}
	settle = func(name string) {
		h.t.Helper()
		h.g.Eventually(func(g Gomega) {
			h.waitCacheSynced(name)
			q := queue.Load()
			g.Expect(q).NotTo(BeNil())
			g.Expect((*q).Len()).To(BeZero())
			g.Expect(inFlight.Load()).To(BeZero())
		}).WithTimeout(20 * time.Second).WithPolling(50 * time.Millisecond).MustPassRepeatedly(3).Should(Succeed())
	}
	return m, stop, settle
}

// noWatch is the manager's client as a client.WithWatch, which the interceptor wraps; the controller never
// watches through its client.
type noWatch struct{ client.Client }

func (noWatch) Watch(context.Context, client.ObjectList, ...client.ListOption) (watch.Interface, error) {
	return nil, errors.New("the controller's client does not watch")
}

// sequencedRecorder puts each event in the write counter's sequence ("event Reason CronJob") and records it.
type sequencedRecorder struct {
	events.EventRecorder
	w *writeCounter
}

func (r sequencedRecorder) Eventf(regarding, related runtime.Object, eventtype, reason, action, note string,
	args ...any) {
	name := ""
	if obj, ok := regarding.(client.Object); ok {
		name = obj.GetName()
	}
	r.w.mu.Lock()
	r.w.seq = append(r.w.seq, "event "+reason+" "+name)
	r.w.mu.Unlock()
	r.EventRecorder.Eventf(regarding, related, eventtype, reason, action, note, args...)
}
