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

package bench

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/go-logr/logr"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/utils/clock"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/config"
	"sigs.k8s.io/controller-runtime/pkg/manager"
	"sigs.k8s.io/controller-runtime/pkg/metrics/server"

	webappv1 "github.com/siteops/siteops/apis/webapp/v1"
	"github.com/siteops/siteops/controllers/guestbook"
	"github.com/siteops/siteops/test/testenv"
)

// minFailovers is the least number of failovers one benchmark run measures.
const minFailovers = 50

// BenchmarkGuestbookFailover measures, against a real kube-apiserver (envtest) with the Guestbook controller
// running in a manager, the time from the active pod's Ready condition being patched False to another pod
// carrying the active role label, which is what the <name> Service selects. It reports the p50 and p99 over
// at least minFailovers failovers of a Guestbook of three pods; it asserts nothing about them.
func BenchmarkGuestbookFailover(b *testing.B) {
	ctrl.SetLogger(logr.Discard())
	env, err := testenv.Start(testenv.Options{})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = env.Stop() })
	ctx, cancel := context.WithCancel(context.Background())
	b.Cleanup(cancel)
	if err := startGuestbookManager(ctx, env); err != nil {
		b.Fatal(err)
	}
	c, err := client.NewWithWatch(env.Config, client.Options{Scheme: env.Scheme})
	if err != nil {
		b.Fatal(err)
	}

	ns, pods := setupGuestbook(ctx, b, c, 3)
	w, err := c.Watch(ctx, &corev1.PodList{}, client.InNamespace(ns),
		client.MatchingLabels{webappv1.LabelRole: webappv1.RoleActive})
	if err != nil {
		b.Fatal(err)
	}
	defer w.Stop()
	active := waitForActive(b, w, "")

	n := max(b.N, minFailovers)
	durations := make([]time.Duration, 0, n)
	b.ResetTimer()
	for range n {
		fail, err := readyPatch(ctx, c, ns, active, false)
		if err != nil {
			b.Fatal(err)
		}
		start := time.Now()
		if err := fail(); err != nil {
			b.Fatal(err)
		}
		next := waitForActive(b, w, active)
		durations = append(durations, time.Since(start))
		b.StopTimer()
		if err := setReady(ctx, c, ns, active, true); err != nil {
			b.Fatal(err)
		}
		active = next
		b.StartTimer()
	}
	b.StopTimer()

	slices.Sort(durations)
	p50, p99 := percentile(durations, 50), percentile(durations, 99)
	b.ReportMetric(float64(p50.Microseconds())/1000, "p50-ms")
	b.ReportMetric(float64(p99.Microseconds())/1000, "p99-ms")
	b.ReportMetric(float64(len(durations)), "failovers")
	fmt.Printf("guestbook failover over %d failovers of %d pods: p50 %.1f ms, p99 %.1f ms, max %.1f ms\n",
		len(durations), len(pods), ms(p50), ms(p99), ms(durations[len(durations)-1]))
}

// startGuestbookManager runs a manager with the Guestbook controller until ctx ends.
func startGuestbookManager(ctx context.Context, env *testenv.Env) error {
	mgr, err := ctrl.NewManager(env.Config, manager.Options{
		Scheme:                 env.Scheme,
		Metrics:                server.Options{BindAddress: "0"},
		HealthProbeBindAddress: "0",
		Controller:             config.Controller{SkipNameValidation: ptr.To(true)},
	})
	if err != nil {
		return fmt.Errorf("creating manager: %w", err)
	}
	if err := (&guestbook.Reconciler{
		Client:   mgr.GetClient(),
		Scheme:   mgr.GetScheme(),
		Recorder: mgr.GetEventRecorder("siteops-guestbook"),
		Clock:    clock.RealClock{},
	}).SetupWithManager(mgr); err != nil {
		return fmt.Errorf("setting up the Guestbook controller: %w", err)
	}
	go func() { _ = mgr.Start(ctx) }()
	if !mgr.GetCache().WaitForCacheSync(ctx) {
		return fmt.Errorf("manager cache did not sync")
	}
	return nil
}

// setupGuestbook creates a namespace, a ConfigMap, a Guestbook of size pods and, as envtest runs no
// ReplicaSet controller, its size pods, all Ready.
func setupGuestbook(ctx context.Context, b *testing.B, c client.Client, size int) (string, []string) {
	b.Helper()
	nsObj := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{GenerateName: "bench-"}}
	must(b, c.Create(ctx, nsObj))
	ns := nsObj.Name
	must(b, c.Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "cfg"},
		Data: map[string]string{"k": "v"}}))
	must(b, c.Create(ctx, &webappv1.Guestbook{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "bench"},
		Spec: webappv1.GuestbookSpec{Size: int32(size), ConfigMapName: "cfg"}}))
	var pods []string
	for i := range size {
		name := fmt.Sprintf("bench-%d", i)
		must(b, c.Create(ctx, &corev1.Pod{
			ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name,
				Labels: map[string]string{webappv1.LabelGuestbook: "bench"}},
			Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "guestbook", Image: webappv1.DefaultImage}}},
		}))
		must(b, setReady(ctx, c, ns, name, true))
		pods = append(pods, name)
	}
	return ns, pods
}

// waitForActive reads the watch of active pods until a pod other than not is labelled active, and returns it.
func waitForActive(b *testing.B, w watch.Interface, not string) string {
	b.Helper()
	timeout := time.After(2 * time.Minute)
	for {
		select {
		case ev, ok := <-w.ResultChan():
			if !ok {
				b.Fatal("the pod watch ended")
			}
			pod, isPod := ev.Object.(*corev1.Pod)
			if isPod && ev.Type != watch.Deleted && pod.Name != not &&
				pod.Labels[webappv1.LabelRole] == webappv1.RoleActive {
				return pod.Name
			}
		case <-timeout:
			b.Fatalf("no pod other than %q became active", not)
		}
	}
}

// setReady patches a pod's Ready condition through the status subresource, as the kubelet would.
func setReady(ctx context.Context, c client.Client, ns, name string, ready bool) error {
	patch, err := readyPatch(ctx, c, ns, name, ready)
	if err != nil {
		return err
	}
	return patch()
}

// readyPatch reads a pod and returns the status patch that sets its Ready condition, to send later.
func readyPatch(ctx context.Context, c client.Client, ns, name string, ready bool) (func() error, error) {
	pod := &corev1.Pod{}
	if err := c.Get(ctx, client.ObjectKey{Namespace: ns, Name: name}, pod); err != nil {
		return nil, err
	}
	before := pod.DeepCopy()
	status := corev1.ConditionFalse
	if ready {
		status = corev1.ConditionTrue
	}
	pod.Status.Phase = corev1.PodRunning
	pod.Status.Conditions = []corev1.PodCondition{{Type: corev1.PodReady, Status: status,
		LastTransitionTime: metav1.Now()}}
	return func() error { return c.Status().Patch(ctx, pod, client.MergeFrom(before)) }, nil
}

// percentile is the p-th percentile (nearest rank) of sorted durations.
func percentile(sorted []time.Duration, p int) time.Duration {
	i := (len(sorted)*p + 99) / 100
	return sorted[max(i-1, 0)]
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

func must(b *testing.B, err error) {
	b.Helper()
	if err != nil {
		b.Fatal(err)
	}
}
