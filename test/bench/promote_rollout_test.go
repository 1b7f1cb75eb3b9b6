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
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"
	"sigs.k8s.io/controller-runtime/pkg/client"

	webappv1 "github.com/siteops/siteops/apis/webapp/v1"
	"github.com/siteops/siteops/test/managerproc"
	"github.com/siteops/siteops/test/podproc"
	"github.com/siteops/siteops/test/testenv"
)

// promoteScaleDownDelay is the Rollout's scaleDownDelaySeconds: how long the old colour runs on after a promote.
const promoteScaleDownDelay = 3

// promoteChurn is how often the churn changes the Guestbook, so that the leader always has a write to make: a
// new leader's first write waits for the next change at most this long.
const promoteChurn = 50 * time.Millisecond

// promoteManifest is a side's manager Rollout, blue/green as base/manager's (active and preview Services, no
// automatic promotion), without the pre-promotion analysis, the old colour scaled down promoteScaleDownDelay
// seconds after a promote; its pods are backed by processes (test/podproc). %s is the process-backed annotation.
var promoteManifest = fmt.Sprintf(`
apiVersion: v1
kind: Service
metadata: {name: manager-active}
spec:
  selector: {app.kubernetes.io/name: bench-manager}
  ports: [{name: health, port: 8081, targetPort: health}]
---
apiVersion: v1
kind: Service
metadata: {name: manager-preview}
spec:
  selector: {app.kubernetes.io/name: bench-manager}
  ports: [{name: health, port: 8081, targetPort: health}]
---
apiVersion: argoproj.io/v1alpha1
kind: Rollout
metadata: {name: manager}
spec:
  replicas: 1
  revisionHistoryLimit: 1
  selector:
    matchLabels: {app.kubernetes.io/name: bench-manager}
  strategy:
    blueGreen:
      activeService: manager-active
      previewService: manager-preview
      autoPromotionEnabled: false
      scaleDownDelaySeconds: %d
  template:
    metadata:
      labels: {app.kubernetes.io/name: bench-manager}
      annotations: {%s: "true", bench.siteops.dev/revision: "0"}
    spec:
      terminationGracePeriodSeconds: 10
      containers:
        - name: manager
          image: manager
          ports: [{name: health, containerPort: 8081}]
`, promoteScaleDownDelay, podproc.ProcessBackedAnnotation)

// promoteSetup is one side of P6: its namespace (Rollout, Services, Lease) and the managers' election flags.
type promoteSetup struct {
	name, ns string
	flags    []string
}

// promoteFixture is P6's local cluster with Argo Rollouts, the kubectl plugin on PATH, and the Guestbook the
// churn changes.
type promoteFixture struct {
	bc  *benchCluster
	env []string // the cluster's environment with the Argo Rollouts kubectl plugin first on PATH
	cs  kubernetes.Interface
	gb  client.ObjectKey
	// round numbers the sides run, for their namespaces.
	round int
}

func newPromoteFixture(tb testing.TB) *promoteFixture {
	tb.Helper()
	f := &promoteFixture{bc: startBenchCluster(tb, "kwok rollouts", "*"),
		gb: client.ObjectKey{Namespace: "bench-handoff", Name: "gb"}}
	rollouts, err := testenv.PinnedDir("rollouts")
	if err != nil {
		tb.Fatalf("locating the Argo Rollouts kubectl plugin: %v", err)
	}
	// exec keeps the last of duplicate variables.
	f.env = append(append([]string(nil), f.bc.env...), "PATH="+rollouts+":"+os.Getenv("PATH"))
	cfg, err := clientcmd.BuildConfigFromFlags("", f.bc.kubeconfig)
	mustDo(tb, err)
	f.cs, err = kubernetes.NewForConfig(cfg)
	mustDo(tb, err)
	ctx := context.Background()
	mustDo(tb, f.bc.c.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: f.gb.Namespace}}))
	mustDo(tb, f.bc.c.Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: f.gb.Namespace, Name: "cfg"},
		Data: map[string]string{"title": "handoff"}}))
	mustDo(tb, f.bc.c.Create(ctx, &webappv1.Guestbook{ObjectMeta: metav1.ObjectMeta{Namespace: f.gb.Namespace,
		Name: f.gb.Name},
		Spec: webappv1.GuestbookSpec{Size: 1, ConfigMapName: "cfg"}}))
	return f
}

// kubectl runs kubectl (and its Argo Rollouts plugin) against the cluster, with stdin when not empty.
func (f *promoteFixture) kubectl(stdin string, args ...string) (string, error) {
	cmd := exec.Command("kubectl", args...)
	cmd.Env = f.env
	if stdin != "" {
		cmd.Stdin = strings.NewReader(stdin)
	}
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// churnInFlight is how many of the churn's patches may be in flight at once. A patch of a Guestbook goes through
// the manager's admission webhook and can take longer than promoteChurn: sent one after the other, the changes
// would come less often than promoteChurn says.
const churnInFlight = 2

// churn changes the Guestbook's size every promoteChurn until the returned stop function is first called,
// without waiting for the previous change to return (a tick is skipped when churnInFlight are still in flight).
func (f *promoteFixture) churn() (stop func()) {
	done := make(chan struct{})
	var wg sync.WaitGroup
	slots := make(chan struct{}, churnInFlight)
	wg.Go(func() {
		tick := time.NewTicker(promoteChurn)
		defer tick.Stop()
		for i := 0; ; i++ {
			select {
			case <-done:
				return
			case <-tick.C:
			}
			select {
			case slots <- struct{}{}:
			default:
				continue
			}
			gb := &webappv1.Guestbook{ObjectMeta: metav1.ObjectMeta{Namespace: f.gb.Namespace, Name: f.gb.Name}}
			patch := client.RawPatch("application/merge-patch+json", fmt.Appendf(nil, `{"spec":{"size":%d}}`, 1+i%2))
			wg.Go(func() {
				defer func() { <-slots }()
				_ = f.bc.c.Patch(context.Background(), gb, patch)
			})
		}
	})
	var once sync.Once
	return func() { once.Do(func() { close(done); wg.Wait() }) }
}

// rolloutStatus is what a sample reads of the Rollout's status.
type rolloutStatus struct {
	phase, active, preview string
	paused                 bool
}

// rollout reads the Rollout of namespace ns.
func (f *promoteFixture) rollout(ns string) rolloutStatus {
	u := &unstructured.Unstructured{}
	u.SetAPIVersion("argoproj.io/v1alpha1")
	u.SetKind("Rollout")
	if err := f.bc.c.Get(context.Background(), client.ObjectKey{Namespace: ns, Name: "manager"}, u); err != nil {
		return rolloutStatus{}
	}
	str := func(path ...string) string { s, _, _ := unstructured.NestedString(u.Object, path...); return s }
	pauses, _, _ := unstructured.NestedSlice(u.Object, "status", "pauseConditions")
	return rolloutStatus{phase: str("status", "phase"), active: str("status", "blueGreen", "activeSelector"),
		preview: str("status", "blueGreen", "previewSelector"), paused: len(pauses) > 0}
}

// processOf is the running process of the pod with pod-template hash hash, or nil.
func processOf(h *podproc.Harness, hash string) *podproc.PodProcess {
	for _, p := range h.Processes() {
		if p.Hash == hash && !p.Terminated() {
			return p
		}
	}
	return nil
}

// wrote reports whether p has logged a persisted write.
func wrote(p *podproc.PodProcess) bool { return managerproc.WriteSpanOf(p.Logs()).Count > 0 }

// startSide deploys setup's Rollout with its pods backed by manager processes, and waits until the first pod's
// manager leads and writes (the churn must run). The harness stops on cleanup.
func (f *promoteFixture) startSide(tb testing.TB, setup promoteSetup) *podproc.Harness {
	tb.Helper()
	if out, err := f.kubectl("", "create", "namespace", setup.ns); err != nil {
		tb.Fatalf("creating namespace %s: %v\n%s", setup.ns, err, out)
	}
	h := podproc.New(podproc.Config{Client: f.cs, Namespace: setup.ns, Selector: "app.kubernetes.io/name=bench-manager",
		Binary: managerBinary(tb), Kubeconfig: f.bc.kubeconfig, ActiveService: "manager-active",
		WebhookCertDir: tb.TempDir(), WorkDir: tb.TempDir(),
		Args: append([]string{"--enable-webhooks=false", "--metrics-bind-address=0", "--receiver-bind-address=0",
			"--zap-log-level=1", "--zap-time-encoding=rfc3339nano"}, setup.flags...)})
	ctx, cancel := context.WithCancel(context.Background())
	tb.Cleanup(func() {
		cancel()
		h.Stop()
		if tb.Failed() {
			for _, p := range h.Processes() {
				tb.Logf("%s: manager of pod %s log (last 8 KiB):\n%s", setup.name, p.Pod, managerproc.Tail(p.Logs(), 8<<10))
			}
		}
	})
	mustDo(tb, h.Start(ctx))
	if out, err := f.kubectl(promoteManifest, "-n", setup.ns, "apply", "-f", "-"); err != nil {
		tb.Fatalf("applying the %s Rollout: %v\n%s", setup.name, err, out)
	}
	waitUntil(tb, 3*time.Minute, setup.name+": the first pod's manager leads and writes", func() bool {
		st := f.rollout(setup.ns)
		p := processOf(h, st.active)
		return st.phase == "Healthy" && p != nil && p.Mode() == "leader" && wrote(p)
	})
	return h
}

// promote is one sample: a new pod template (revision i), the Rollout Paused with the new colour's manager
// Ready and in standby mode while the old one leads, `kubectl argo rollouts promote`, the new colour's first
// write, and the old colour's process stopped by the scale-down.
func (f *promoteFixture) promote(tb testing.TB, h *podproc.Harness, setup promoteSetup, i int) promoteSample {
	tb.Helper()
	oldHash := f.rollout(setup.ns).active
	old := processOf(h, oldHash)
	if old == nil {
		tb.Fatalf("%s promote %d: no process for the active hash %q", setup.name, i, oldHash)
	}
	patch := fmt.Sprintf(`{"spec":{"template":{"metadata":{"annotations":{"bench.siteops.dev/revision":"%d"}}}}}`, i)
	if out, err := f.kubectl("", "-n", setup.ns, "patch", "rollout", "manager", "--type=merge", "-p", patch); err != nil {
		tb.Fatalf("%s promote %d: changing the pod template: %v\n%s", setup.name, i, err, out)
	}
	var cur *podproc.PodProcess
	waitUntil(tb, 3*time.Minute, fmt.Sprintf("%s promote %d: Rollout Paused with a Ready preview in standby mode",
		setup.name, i), func() bool {
		st := f.rollout(setup.ns)
		if st.phase != "Paused" || !st.paused || st.active != oldHash || st.preview == "" || st.preview == oldHash {
			return false
		}
		cur = processOf(h, st.preview)
		return cur != nil && cur.Ready() && cur.Mode() == "standby" && old.Mode() == "leader"
	})
	if out, err := f.kubectl("", "argo", "rollouts", "-n", setup.ns, "promote", "manager"); err != nil {
		tb.Fatalf("%s promote %d: kubectl argo rollouts promote: %v\n%s", setup.name, i, err, out)
	}
	promoted := time.Now()
	// The old colour's scale-down comes seconds after the hand-off: waiting for it first keeps the harness from
	// reading the new colour's whole log every poll while the hand-off is being timed.
	waitUntil(tb, 2*time.Minute, fmt.Sprintf("%s promote %d: the old colour scaled down and its process exited",
		setup.name, i), func() bool {
		return old.Terminated() && exited(old.Exited())
	})
	waitUntil(tb, 2*time.Minute, fmt.Sprintf("%s promote %d: the new colour writes", setup.name, i),
		func() bool { return wrote(cur) })
	if d := os.Getenv(envHandoffLogs); d != "" {
		_ = os.WriteFile(filepath.Join(d, fmt.Sprintf("%s-%d-old.log", setup.ns, i)), []byte(old.Logs()), 0o644)
		_ = os.WriteFile(filepath.Join(d, fmt.Sprintf("%s-%d-new.log", setup.ns, i)), []byte(cur.Logs()), 0o644)
		_ = os.WriteFile(filepath.Join(d, fmt.Sprintf("%s-%d-promoted", setup.ns, i)),
			[]byte(promoted.Format(time.RFC3339Nano)), 0o644)
	}
	return promoteSample{promoted: promoted, old: managerproc.WriteSpanOf(old.Logs()),
		cur:     managerproc.WriteSpanOf(cur.Logs()),
		stopped: managerproc.FirstLogAt(old.Logs(), "stopped leading"),
		started: managerproc.FirstLogAt(cur.Logs(), "started leading")}
}

// exited reports whether ch is closed.
func exited(ch <-chan struct{}) bool {
	select {
	case <-ch:
		return true
	default:
		return false
	}
}
