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

// Package podproc backs the manager pods kwok "runs" with real bin/manager processes on the host, for the
// end-to-end tests: the kubelet and kube-proxy the local cluster lacks. Harness starts one process for every
// bound pod a label selector picks, with the pod's name, namespace and pod-template hash as the downward API
// would give them, stops it with SIGTERM when the pod is deleted, and writes the process' /readyz into the
// pod's Ready condition (hack/kwok/pod-process-backed.yaml leaves that condition to it). Proxy plays
// kube-proxy for one Service port on 127.0.0.1; ServeDNS plays the cluster DNS for programs on the host, each
// Service on a loopback address of its own (ServiceNet).
//
// A process that exits on its own (it crashed, or a test killed it) is a container that died in a pod with
// restartPolicy Always, and the harness does what the kubelet does: the pod turns NotReady with the
// container terminated (exit code, or 128 plus the signal), and after a back-off (Config.RestartDelay,
// doubled for each restart of the pod, at most maxRestartDelay) a new process starts for the same pod, with
// the pod's restartCount one higher and the old exit in lastState. The pod, its name, hash and UID stay;
// only a deleted pod's process stays stopped, and its ReplicaSet's replacement is a new pod the harness
// backs anew. The kubelet's first back-off is 10s; tests use a shorter one.
package podproc

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"syscall"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	listersv1 "k8s.io/client-go/listers/core/v1"
	"k8s.io/client-go/tools/cache"
	"k8s.io/utils/clock"

	"github.com/siteops/siteops/test/managerproc"
)

// ProcessBackedAnnotation marks the pods whose Ready condition kwok leaves to the harness
// (hack/kwok/pod-process-backed.yaml).
const ProcessBackedAnnotation = "e2e.siteops.dev/process-backed"

// Config says which pods the harness backs and how it runs their manager.
type Config struct {
	Client kubernetes.Interface
	// Namespace holds the pods, the Lease and the active Service.
	Namespace string
	// Selector is the pods' label selector, e.g. the manager Rollout's selector.
	Selector string
	// Binary is bin/manager; Kubeconfig is the hub's, given to each process.
	Binary, Kubeconfig string
	// Binaries maps an image tag to the manager build that a pod whose first container runs an image of that
	// tag gets instead of Binary: the kubelet pulls a different image, the harness runs a different build.
	Binaries map[string]string
	// ActiveService is the Argo Rollouts active Service (--active-service).
	ActiveService string
	// WebhookCertDir holds tls.crt and tls.key for every process' webhook server.
	WebhookCertDir string
	// SelfCerts has each process keep its webhook certificate itself (--cert-source=self, in a folder of its
	// own under its work folder), as the manager pods of base/ do; WebhookCertDir is then unused.
	SelfCerts bool
	// StandbySecure serves /standby over HTTPS with token authentication (--standby-secure).
	StandbySecure bool
	// WorkDir is the parent of each process' --work-dir.
	WorkDir string
	// Args are more flags, after the harness' own: a repeated flag overrides.
	Args []string
	// RestartDelay is the back-off before the first restart of a process that exited on its own; 0 means
	// one second.
	RestartDelay time.Duration
	// Clock times the restart back-off; nil means the real clock.
	Clock clock.Clock
	// Logf reports what the harness does (a test's t.Logf).
	Logf func(format string, args ...any)
}

// PodProcess is the manager process behind one pod.
type PodProcess struct {
	*managerproc.Process
	// Pod and Hash are the pod's name and rollouts-pod-template-hash label.
	Pod, Hash string
	UID       types.UID
	// Ports maps the pod's container port names to the process' loopback ports.
	Ports map[string]int
	// Restarts is the pod's restartCount when this process started: how many processes ran for the pod before.
	Restarts int32

	mu         sync.Mutex
	terminated bool
}

// Terminated reports whether the harness sent SIGTERM (the pod was deleted); a process that exited on its
// own was not terminated.
func (p *PodProcess) Terminated() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.terminated
}

// Harness runs the processes; New makes it, Start runs it until Stop.
type Harness struct {
	cfg    Config
	pods   listersv1.PodLister
	cancel context.CancelFunc
	wg     sync.WaitGroup

	mu    sync.Mutex
	procs map[types.UID]*PodProcess
	order []*PodProcess
}

// New makes a harness for cfg.
func New(cfg Config) *Harness {
	if cfg.Logf == nil {
		cfg.Logf = func(string, ...any) {}
	}
	if cfg.RestartDelay <= 0 {
		cfg.RestartDelay = time.Second
	}
	if cfg.Clock == nil {
		cfg.Clock = clock.RealClock{}
	}
	return &Harness{cfg: cfg, procs: map[types.UID]*PodProcess{}}
}

// Start watches the pods and returns once the watch has synced; the harness runs until Stop.
func (h *Harness) Start(ctx context.Context) error {
	ctx, h.cancel = context.WithCancel(ctx)
	f := informers.NewSharedInformerFactoryWithOptions(h.cfg.Client, 0, informers.WithNamespace(h.cfg.Namespace),
		informers.WithTweakListOptions(func(o *metav1.ListOptions) { o.LabelSelector = h.cfg.Selector }))
	inf := f.Core().V1().Pods()
	h.pods = inf.Lister()
	_, err := inf.Informer().AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    func(obj any) { h.observe(ctx, obj) },
		UpdateFunc: func(_, obj any) { h.observe(ctx, obj) },
		DeleteFunc: func(obj any) {
			if d, ok := obj.(cache.DeletedFinalStateUnknown); ok {
				obj = d.Obj
			}
			if pod, ok := obj.(*corev1.Pod); ok {
				h.terminate(pod.UID, "deleted")
			}
		},
	})
	if err != nil {
		return err
	}
	f.Start(ctx.Done())
	for typ, ok := range f.WaitForCacheSync(ctx.Done()) {
		if !ok {
			return fmt.Errorf("podproc: %v watch did not sync", typ)
		}
	}
	return nil
}

// Stop ends the watch, sends SIGTERM to every process still running and waits for all to exit.
func (h *Harness) Stop() {
	if h.cancel != nil {
		h.cancel()
	}
	h.mu.Lock()
	uids := make([]types.UID, 0, len(h.procs))
	for uid := range h.procs {
		uids = append(uids, uid)
	}
	h.mu.Unlock()
	for _, uid := range uids {
		h.terminate(uid, "harness stopped")
	}
	h.wg.Wait()
}

// Processes is every process the harness started, oldest first.
func (h *Harness) Processes() []*PodProcess {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]*PodProcess(nil), h.order...)
}

// Process is the newest process of the pod named pod (after a restart, the one that replaced the dead one),
// or nil.
func (h *Harness) Process(pod string) *PodProcess {
	all := h.Processes()
	for i := len(all) - 1; i >= 0; i-- {
		if all[i].Pod == pod {
			return all[i]
		}
	}
	return nil
}

// observe starts the process of a bound pod, and stops it once the pod is terminating.
func (h *Harness) observe(ctx context.Context, obj any) {
	pod, ok := obj.(*corev1.Pod)
	if !ok {
		return
	}
	if pod.DeletionTimestamp != nil {
		h.terminate(pod.UID, "terminating")
		return
	}
	if pod.Spec.NodeName == "" {
		return
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if _, running := h.procs[pod.UID]; running || h.started(pod.UID) {
		return
	}
	if p := h.run(ctx, pod, 0); p != nil {
		h.cfg.Logf("podproc: pod %s (hash %s) bound to %s: started manager pid %d", pod.Name, p.Hash, pod.Spec.NodeName,
			p.Pid())
	}
}

// run starts the manager of pod, its restarts-th restart, and keeps its pod's Ready condition (callers hold
// h.mu); nil when it could not start.
func (h *Harness) run(ctx context.Context, pod *corev1.Pod, restarts int32) *PodProcess {
	p, err := h.launch(pod)
	if err != nil {
		h.cfg.Logf("podproc: pod %s: starting its manager: %v", pod.Name, err)
		return nil
	}
	p.Restarts = restarts
	h.procs[pod.UID] = p
	h.order = append(h.order, p)
	h.wg.Add(1)
	go func() { defer h.wg.Done(); h.syncReady(ctx, p) }()
	return p
}

// started reports whether a process ever ran for uid (callers hold h.mu): observe starts a pod's first
// process only; restart starts the next.
func (h *Harness) started(uid types.UID) bool {
	for _, p := range h.order {
		if p.UID == uid {
			return true
		}
	}
	return false
}

// launch starts the manager of pod on free loopback ports.
func (h *Harness) launch(pod *corev1.Pod) (*PodProcess, error) {
	ports := map[string]int{}
	for _, name := range []string{"webhook", "metrics", "receiver"} {
		port, err := managerproc.FreeLoopbackPort()
		if err != nil {
			return nil, err
		}
		ports[name] = port
	}
	hash := pod.Labels["rollouts-pod-template-hash"]
	work := filepath.Join(h.cfg.WorkDir, pod.Name)
	if err := os.MkdirAll(work, 0o755); err != nil {
		return nil, err
	}
	certSource, certDir := "files", h.cfg.WebhookCertDir
	if h.cfg.SelfCerts {
		certSource, certDir = "self", filepath.Join(work, "webhook-certs")
	}
	args := append([]string{
		"--kubeconfig=" + h.cfg.Kubeconfig,
		"--leader-election-namespace=" + h.cfg.Namespace,
		"--active-service=" + h.cfg.ActiveService,
		"--pod-template-hash=" + hash,
		fmt.Sprintf("--standby-secure=%t", h.cfg.StandbySecure),
		fmt.Sprintf("--metrics-bind-address=127.0.0.1:%d", ports["metrics"]),
		fmt.Sprintf("--receiver-bind-address=127.0.0.1:%d", ports["receiver"]),
		"--enable-webhooks=true", "--cert-source=" + certSource, "--webhook-host=127.0.0.1",
		fmt.Sprintf("--webhook-port=%d", ports["webhook"]),
		"--webhook-cert-dir=" + certDir,
	}, h.cfg.Args...)
	env := []string{"POD_NAME=" + pod.Name, "POD_NAMESPACE=" + pod.Namespace, "POD_TEMPLATE_HASH=" + hash}
	proc, err := managerproc.Launch(pod.Name, h.cfg.binaryFor(pod), work, env, args...)
	if err != nil {
		return nil, err
	}
	ports["health"], ports["standby"] = proc.ProbePort, proc.StandbyPort
	return &PodProcess{Process: proc, Pod: pod.Name, Hash: hash, UID: pod.UID, Ports: ports}, nil
}

// terminate sends SIGTERM to the process of pod uid, once, and waits for it in the background.
func (h *Harness) terminate(uid types.UID, why string) {
	h.mu.Lock()
	p := h.procs[uid]
	delete(h.procs, uid)
	h.mu.Unlock()
	if p == nil {
		return
	}
	p.mu.Lock()
	p.terminated = true
	p.mu.Unlock()
	h.cfg.Logf("podproc: pod %s %s: SIGTERM to manager pid %d", p.Pod, why, p.Pid())
	h.wg.Add(1)
	go func() {
		defer h.wg.Done()
		p.Stop(syscall.SIGTERM)
		h.cfg.Logf("podproc: pod %s: manager pid %d exited", p.Pod, p.Pid())
	}()
}
