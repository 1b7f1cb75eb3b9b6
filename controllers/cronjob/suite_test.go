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
	"flag"
	"fmt"
	"os"
	"sort"
	"testing"
	"time"

	"github.com/go-logr/logr"
	. "github.com/onsi/gomega"
	kbatchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/events"
	clocktesting "k8s.io/utils/clock/testing"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/config"
	"sigs.k8s.io/controller-runtime/pkg/metrics"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	batchv1 "github.com/siteops/siteops/apis/batch/v1"
	"github.com/siteops/siteops/apis/batch/v1/cronjobtest"
	"github.com/siteops/siteops/internal/shard"
	"github.com/siteops/siteops/test/testenv"
)

// The controller tests run against a real kube-apiserver (envtest) with the webhooks off, so what they see
// is what the CRD's schema and CEL rules allow. Most call Reconcile directly on a Reconciler whose client
// reads through a started cache with the Job owner index, after waiting until that cache has caught up with
// the apiserver, and drive a fake clock: no test waits for a schedule.

var (
	env *testenv.Env
	// cached reads through the shared cache (with the owner index) and writes to the apiserver, as the
	// manager's client does.
	cached client.Client
	// direct reads the apiserver itself; tests assert through it.
	direct client.Client
	// testMetrics are the harness reconcilers' Observer, registered as the manager registers its own.
	testMetrics *Metrics
)

// t0 is a Monday far enough in the future that a CronJob's real creation time is always earlier, so tests
// that set status.lastScheduleTime to it control the schedule completely.
var t0 = time.Date(2035, 1, 1, 10, 0, 0, 0, time.UTC)

func TestMain(m *testing.M) {
	os.Exit(run(m))
}

func run(m *testing.M) int {
	// A fuzz worker (go test -fuzz starts this binary again with -test.fuzzworker) runs only the fuzz target,
	// which needs no apiserver. Started there, envtest's etcd and kube-apiserver outlive the worker when the
	// coordinator stops it, keep its pipes open and hang the fuzz run at the end.
	flag.Parse()
	if f := flag.Lookup("test.fuzzworker"); f != nil && f.Value.String() == "true" {
		return m.Run()
	}
	// The tests assert on state and events; controller-runtime's logs would only add noise.
	ctrl.SetLogger(logr.Discard())
	var err error
	if env, err = testenv.Start(testenv.Options{}); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer func() { _ = env.Stop() }()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	mgr, err := newManager("")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	if err := mgr.GetFieldIndexer().IndexField(ctx, &kbatchv1.Job{}, jobOwnerKey, jobOwnerIndex); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	go func() { _ = mgr.Start(ctx) }()
	if !mgr.GetCache().WaitForCacheSync(ctx) {
		fmt.Fprintln(os.Stderr, "cache did not sync")
		return 1
	}
	cached = mgr.GetClient()
	if testMetrics, err = NewMetrics(metrics.Registry); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	if direct, err = client.New(env.Config, client.Options{Scheme: env.Scheme}); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return m.Run()
}

// newManager returns a manager for tests: no metrics or probe listeners, no leader election, several may run
// in one process, and it watches only the namespace given ("" = all). Its cache is the manager's
// (shard.CacheOptions): cached Jobs have no pod template, as in cmd/manager.
func newManager(namespace string) (ctrl.Manager, error) {
	cacheOpts := shard.CacheOptions(labels.Everything(), "")
	if namespace != "" {
		cacheOpts.DefaultNamespaces = map[string]cache.Config{namespace: {}}
	}
	return ctrl.NewManager(env.Config, ctrl.Options{
		Cache:                  cacheOpts,
		Scheme:                 env.Scheme,
		Metrics:                metricsserver.Options{BindAddress: "0"},
		HealthProbeBindAddress: "0",
		LeaderElection:         false,
		Controller:             config.Controller{SkipNameValidation: ptr.To(true)},
	})
}

// harness is one test's namespace, fake clock, event recorder and Reconciler.
type harness struct {
	t      *testing.T
	g      *WithT
	ctx    context.Context
	ns     string
	clock  *clocktesting.FakeClock
	events *events.FakeRecorder
	r      *Reconciler
}

func newHarness(t *testing.T, now time.Time) *harness {
	t.Helper()
	g := NewWithT(t)
	ctx := context.Background()
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{GenerateName: "cronjob-"}}
	g.Expect(direct.Create(ctx, ns)).To(Succeed())
	h := &harness{t: t, g: g, ctx: ctx, ns: ns.Name, clock: clocktesting.NewFakeClock(now),
		events: events.NewFakeRecorder(1000)}
	h.r = h.newReconciler()
	return h
}

// newReconciler returns a Reconciler on the shared cache with this test's clock and recorder; a second one
// stands for a restarted controller.
func (h *harness) newReconciler() *Reconciler {
	return &Reconciler{Client: cached, Scheme: env.Scheme, Recorder: h.events, Clock: h.clock, Observer: testMetrics}
}

// create creates a CronJob from the book's sample, changed by mutate, and returns it as stored.
func (h *harness) create(name string, mutate func(*batchv1.CronJob)) *batchv1.CronJob {
	h.t.Helper()
	cj := cronjobtest.Valid(h.ns, name)
	if mutate != nil {
		mutate(cj)
	}
	h.g.Expect(direct.Create(h.ctx, cj)).To(Succeed())
	return cj
}

// createScheduledAt creates a CronJob whose status says its last run was at last, so the schedule counts
// from there and not from the (real) creation time.
func (h *harness) createScheduledAt(name string, last time.Time, mutate func(*batchv1.CronJob)) *batchv1.CronJob {
	h.t.Helper()
	cj := h.create(name, mutate)
	cj.Status.LastScheduleTime = &metav1.Time{Time: last}
	h.g.Expect(direct.Status().Update(h.ctx, cj)).To(Succeed())
	return cj
}

// get reads the CronJob from the apiserver.
func (h *harness) get(name string) *batchv1.CronJob {
	h.t.Helper()
	cj := &batchv1.CronJob{}
	h.g.Expect(direct.Get(h.ctx, types.NamespacedName{Namespace: h.ns, Name: name}, cj)).To(Succeed())
	return cj
}

// update changes the CronJob's spec or metadata, retrying on conflicts.
func (h *harness) update(name string, mutate func(*batchv1.CronJob)) {
	h.t.Helper()
	h.g.Eventually(func() error {
		cj := h.get(name)
		mutate(cj)
		return direct.Update(h.ctx, cj)
	}).WithTimeout(10 * time.Second).Should(Succeed())
}

// reconcile waits until the cache has caught up with the apiserver for this namespace, then runs one
// reconcile of the CronJob with the harness' Reconciler.
func (h *harness) reconcile(name string) (ctrl.Result, error) {
	h.t.Helper()
	return h.reconcileWith(h.r, name)
}

func (h *harness) reconcileWith(r *Reconciler, name string) (ctrl.Result, error) {
	h.t.Helper()
	h.waitCacheSynced(name)
	return r.Reconcile(h.ctx, ctrl.Request{NamespacedName: types.NamespacedName{Namespace: h.ns, Name: name}})
}

// mustReconcile reconciles and expects no error.
func (h *harness) mustReconcile(name string) ctrl.Result {
	h.t.Helper()
	res, err := h.reconcile(name)
	h.g.Expect(err).NotTo(HaveOccurred())
	return res
}

// waitCacheSynced waits until the cache holds the same version of the CronJob and of every Job in the
// namespace as the apiserver.
func (h *harness) waitCacheSynced(name string) {
	h.t.Helper()
	h.g.Eventually(func(g Gomega) {
		key := types.NamespacedName{Namespace: h.ns, Name: name}
		var want, got batchv1.CronJob
		g.Expect(direct.Get(h.ctx, key, &want)).To(Succeed())
		g.Expect(cached.Get(h.ctx, key, &got)).To(Succeed())
		g.Expect(got.ResourceVersion).To(Equal(want.ResourceVersion))
		var wantJobs, gotJobs kbatchv1.JobList
		g.Expect(direct.List(h.ctx, &wantJobs, client.InNamespace(h.ns))).To(Succeed())
		g.Expect(cached.List(h.ctx, &gotJobs, client.InNamespace(h.ns))).To(Succeed())
		g.Expect(versions(gotJobs.Items)).To(Equal(versions(wantJobs.Items)))
	}).WithTimeout(10 * time.Second).WithPolling(20 * time.Millisecond).Should(Succeed())
}

func versions(jobs []kbatchv1.Job) []string {
	out := []string{}
	for _, j := range jobs {
		out = append(out, j.Name+"@"+j.ResourceVersion)
	}
	sort.Strings(out)
	return out
}

// jobs lists the Jobs in the namespace from the apiserver, sorted by name.
func (h *harness) jobs() []kbatchv1.Job {
	h.t.Helper()
	var list kbatchv1.JobList
	h.g.Expect(direct.List(h.ctx, &list, client.InNamespace(h.ns))).To(Succeed())
	sort.Slice(list.Items, func(i, j int) bool { return list.Items[i].Name < list.Items[j].Name })
	return list.Items
}

func jobNames(jobs []kbatchv1.Job) []string {
	out := []string{}
	for _, j := range jobs {
		out = append(out, j.Name)
	}
	return out
}

// finish marks a Job finished at the given time the way the Job controller does: start time, counts, the
// interim condition (SuccessCriteriaMet or FailureTarget) and the final one (Complete or Failed).
func (h *harness) finish(jobName string, succeeded bool, at time.Time) {
	h.t.Helper()
	job := &kbatchv1.Job{}
	h.g.Expect(direct.Get(h.ctx, types.NamespacedName{Namespace: h.ns, Name: jobName}, job)).To(Succeed())
	start := metav1.NewTime(at.Add(-30 * time.Second))
	end := metav1.NewTime(at)
	job.Status.StartTime = &start
	cond := func(t kbatchv1.JobConditionType, reason string) kbatchv1.JobCondition {
		return kbatchv1.JobCondition{Type: t, Status: corev1.ConditionTrue, Reason: reason,
			LastProbeTime: end, LastTransitionTime: end}
	}
	if succeeded {
		job.Status.Succeeded = 1
		job.Status.CompletionTime = &end
		job.Status.Conditions = []kbatchv1.JobCondition{
			cond(kbatchv1.JobSuccessCriteriaMet, "CompletionsReached"), cond(kbatchv1.JobComplete, "CompletionsReached")}
	} else {
		job.Status.Failed = 1
		job.Status.Conditions = []kbatchv1.JobCondition{
			cond(kbatchv1.JobFailureTarget, "BackoffLimitExceeded"), cond(kbatchv1.JobFailed, "BackoffLimitExceeded")}
		for i := range job.Status.Conditions {
			job.Status.Conditions[i].Message = "Job has reached the specified backoff limit"
		}
	}
	h.g.Expect(direct.Status().Update(h.ctx, job)).To(Succeed())
}

// drainEvents returns the events recorded so far, as "Type Reason message".
func (h *harness) drainEvents() []string {
	var out []string
	for {
		select {
		case e := <-h.events.Events:
			out = append(out, e)
		default:
			return out
		}
	}
}

// condition returns the CronJob's condition of that type, or nil.
func condition(cj *batchv1.CronJob, ctype string) *metav1.Condition {
	for i := range cj.Status.Conditions {
		if cj.Status.Conditions[i].Type == ctype {
			return &cj.Status.Conditions[i]
		}
	}
	return nil
}
