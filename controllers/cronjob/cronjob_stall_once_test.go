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
	"testing"
	"time"

	"github.com/go-logr/logr/funcr"
	. "github.com/onsi/gomega"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/config"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	batchv1 "github.com/siteops/siteops/apis/batch/v1"
)

// reconcileLog is what a running controller did: the error of each reconcile and the lines it logged.
type reconcileLog struct {
	mu     sync.Mutex
	errs   []error
	errors []string // the lines logged at error level
}

func (l *reconcileLog) reconciled(err error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.errs = append(l.errs, err)
}

func (l *reconcileLog) log(prefix, args string) {
	if !strings.Contains(args, `"error"=`) {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	l.errors = append(l.errors, prefix+" "+args)
}

// snapshot returns the reconciles' errors and the error lines so far.
func (l *reconcileLog) snapshot() ([]error, []string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]error(nil), l.errs...), append([]string(nil), l.errors...)
}

// startLoggedManager runs the CronJob controller (SetupWithManager) in a manager that logs into l, recording
// the error of every reconcile; the returned function stops it.
func (h *harness) startLoggedManager(l *reconcileLog) (stop func()) {
	h.t.Helper()
	mgr, err := ctrl.NewManager(env.Config, ctrl.Options{
		Cache:  cache.Options{DefaultNamespaces: map[string]cache.Config{h.ns: {}}},
		Scheme: env.Scheme, Logger: funcr.New(l.log, funcr.Options{}),
		Metrics: metricsserver.Options{BindAddress: "0"}, HealthProbeBindAddress: "0",
		Controller: config.Controller{SkipNameValidation: ptr.To(true)},
	})
	h.g.Expect(err).NotTo(HaveOccurred())
	r := &Reconciler{Client: mgr.GetClient(), Scheme: mgr.GetScheme(), Recorder: h.events, Clock: h.clock,
		Complete: func(b *builder.Builder, opts controller.Options, _ client.ObjectList, rec reconcile.Reconciler) error {
			return b.WithOptions(opts).Complete(reconcile.Func(func(ctx context.Context, req reconcile.Request) (
				reconcile.Result, error) {
				res, err := rec.Reconcile(ctx, req)
				l.reconciled(err)
				return res, err
			}))
		}}
	h.g.Expect(r.SetupWithManager(mgr)).To(Succeed())
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- mgr.Start(ctx) }()
	return func() {
		cancel()
		h.g.Expect(<-done).To(Succeed())
	}
}

// TestBadScheduleIsReportedOnce: a CronJob whose schedule the controller cannot parse ("61 * * * *") is Stalled
// with one warning and one error line, however often it is reconciled again (its status write, label changes):
// only the first reconcile returns an error (terminal: no requeue), the others find the stall already written.
func TestBadScheduleIsReportedOnce(t *testing.T) {
	h := newHarness(t, t0.Add(10*time.Minute))
	l := &reconcileLog{}
	stop := h.startLoggedManager(l)
	defer stop()
	h.create("bad", func(cj *batchv1.CronJob) { cj.Spec.Schedule = "61 * * * *" })
	h.g.Eventually(func(g Gomega) {
		stalled := condition(h.get("bad"), batchv1.ConditionStalled)
		g.Expect(stalled).NotTo(BeNil())
		g.Expect(stalled.Status).To(Equal(metav1.ConditionTrue))
	}).WithTimeout(20 * time.Second).WithPolling(20 * time.Millisecond).Should(Succeed())

	for i := range 3 {
		seen, _ := l.snapshot()
		h.update("bad", func(cj *batchv1.CronJob) {
			cj.Labels = map[string]string{"touched": fmt.Sprint(i)}
		})
		h.g.Eventually(func() int { errs, _ := l.snapshot(); return len(errs) }).
			WithTimeout(20*time.Second).WithPolling(20*time.Millisecond).Should(BeNumerically(">", len(seen)),
			"the label change is reconciled")
	}

	errs, errorLines := l.snapshot()
	h.g.Expect(h.drainEvents()).To(ConsistOf(HavePrefix("Warning " + batchv1.ReasonInvalidSchedule + " spec.schedule")))
	h.g.Expect(errorLines).To(HaveLen(1))
	h.g.Expect(errorLines[0]).To(ContainSubstring("spec.schedule"))
	h.g.Expect(len(errs)).To(BeNumerically(">=", 4))
	h.g.Expect(errors.Is(errs[0], reconcile.TerminalError(nil))).To(BeTrue(), "got %v", errs[0])
	h.g.Expect(errs[1:]).To(HaveEach(BeNil()), "the same stall is not an error again")
	got := h.get("bad")
	h.g.Expect(condition(got, batchv1.ConditionStalled).Status).To(Equal(metav1.ConditionTrue))
	h.g.Expect(condition(got, batchv1.ConditionReady).Status).To(Equal(metav1.ConditionFalse))
	h.g.Expect(h.jobs()).To(BeEmpty())
}
