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
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/go-logr/logr"
	"k8s.io/client-go/tools/clientcmd"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/siteops/siteops/apis"
	"github.com/siteops/siteops/test/managerproc"
	"github.com/siteops/siteops/test/procstat"
	"github.com/siteops/siteops/test/testenv"
)

// envPortBase shifts the ports of the local clusters P1, P7 and P8 start (hack/local-cluster.sh uses
// base+1…+16; the anchor kube-controller-manager listens on base+20, the manager's probes on base+21) [26600].
// P10's fleet runs at base+100.
const envPortBase = "SITEOPS_BENCH_PORT_BASE"

// benchCluster is a local cluster (hack/local-cluster.sh: etcd, kube-apiserver, kube-controller-manager,
// kube-scheduler, kwok) started for one benchmark in its own state folder, wiped first and stopped on cleanup.
type benchCluster struct {
	dir, kubeconfig string
	portBase        int
	env             []string
	c               client.Client // raised QPS, for creating many objects
}

// startBenchCluster starts the cluster at the bench port base with the optional components and the
// kube-controller-manager controllers given, with the audit log of writes on, and installs siteops' CRDs.
func startBenchCluster(tb testing.TB, components, kcmControllers string) *benchCluster {
	tb.Helper()
	return startBenchClusterAt(tb, envInt(tb, envPortBase, 26600), components, kcmControllers)
}

// startBenchClusterAt is startBenchCluster at port base pb, with the named site clusters beside the hub
// (hack/local-sites.sh: site i listens on pb+20+10i…pb+29+10i).
func startBenchClusterAt(tb testing.TB, pb int, components, kcmControllers string, sites ...string) *benchCluster {
	tb.Helper()
	cache := testenv.Cache()
	bc := &benchCluster{dir: filepath.Join(cache, fmt.Sprintf("bench-cluster-%d", pb)), portBase: pb}
	bc.kubeconfig = filepath.Join(bc.dir, "admin.kubeconfig")
	bc.env = append(os.Environ(), "SITEOPS_CLUSTER_DIR="+bc.dir, fmt.Sprintf("SITEOPS_CLUSTER_PORT_BASE=%d", pb),
		"SITEOPS_CLUSTER_COMPONENTS="+components, "SITEOPS_CLUSTER_KCM_CONTROLLERS="+kcmControllers,
		"SITEOPS_CLUSTER_AUDIT=1", "SITEOPS_CLUSTER_SITES="+strings.Join(sites, ","), "KUBECONFIG="+bc.kubeconfig)
	_ = bc.script("down", "--wipe")
	tb.Cleanup(func() { _ = bc.script("down") })
	if err := bc.script("up"); err != nil {
		tb.Fatalf("local cluster did not come up (logs in %s/logs): %v", bc.dir, err)
	}
	root := testenv.RepoRoot()
	if out, err := bc.kubectl("apply", "--server-side", "-f", filepath.Join(root, "base", "crd", "bases")); err != nil {
		tb.Fatalf("installing CRDs: %v\n%s", err, out)
	}
	// A CRD just created may have no conditions yet, which `kubectl wait` reports as an error: ask again.
	for deadline := time.Now().Add(time.Minute); ; time.Sleep(time.Second) {
		out, err := bc.kubectl("wait", "--for=condition=Established", "crd", "--all", "--timeout=10s")
		if err == nil {
			break
		}
		if time.Now().After(deadline) {
			tb.Fatalf("CRDs not established: %v\n%s", err, out)
		}
	}
	ctrl.SetLogger(logr.Discard())
	cfg, err := clientcmd.BuildConfigFromFlags("", bc.kubeconfig)
	mustDo(tb, err)
	cfg.QPS, cfg.Burst = 2000, 4000
	scheme, err := apis.NewScheme()
	mustDo(tb, err)
	bc.c, err = client.New(cfg, client.Options{Scheme: scheme})
	mustDo(tb, err)
	return bc
}

// script runs hack/local-cluster.sh with the cluster's environment, its output on stderr.
func (bc *benchCluster) script(args ...string) error {
	cmd := exec.Command(filepath.Join(testenv.RepoRoot(), "hack", "local-cluster.sh"), args...)
	cmd.Env, cmd.Stdout, cmd.Stderr = bc.env, os.Stderr, os.Stderr
	return cmd.Run()
}

// kubectl runs kubectl against the cluster and returns its combined output.
func (bc *benchCluster) kubectl(args ...string) (string, error) {
	cmd := exec.Command("kubectl", args...)
	cmd.Env = bc.env
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// auditLog is the path of the cluster's audit log (writes to events, pods, Jobs and CronJobs).
func (bc *benchCluster) auditLog() string { return filepath.Join(bc.dir, "audit.log") }

// createAll creates n objects made by mk with 16 parallel workers, failing tb on the first error.
func createAll(tb testing.TB, c client.Client, n int, mk func(i int) client.Object) {
	tb.Helper()
	inParallel(tb, n, "creating", func(ctx context.Context, i int) error { return c.Create(ctx, mk(i)) })
}

// inParallel calls do for 0…n-1 with 16 parallel workers and a minute's timeout each, failing tb on the
// first error (reported as "<what> object <i>").
func inParallel(tb testing.TB, n int, what string, do func(ctx context.Context, i int) error) {
	tb.Helper()
	var (
		wg    sync.WaitGroup
		mu    sync.Mutex
		first error
	)
	next := make(chan int)
	for range 16 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
				err := do(ctx, i)
				cancel()
				if err != nil {
					mu.Lock()
					if first == nil {
						first = fmt.Errorf("%s object %d: %w", what, i, err)
					}
					mu.Unlock()
				}
			}
		}()
	}
	for i := range n {
		next <- i
	}
	close(next)
	wg.Wait()
	if first != nil {
		tb.Fatal(first)
	}
}

// hostProcess is a process the benchmark started on the host (a controller under test), its output kept.
type hostProcess struct {
	name string
	cmd  *exec.Cmd
	mu   sync.Mutex
	out  bytes.Buffer
	done chan struct{}
	once sync.Once
}

func (p *hostProcess) Write(b []byte) (int, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.out.Write(b)
}

// startHostProcess starts bin with args and env; it is stopped (SIGTERM, then SIGKILL after 20 s) on cleanup,
// and its last output is logged when tb failed.
func startHostProcess(tb testing.TB, name string, env []string, bin string, args ...string) *hostProcess {
	tb.Helper()
	p := &hostProcess{name: name, done: make(chan struct{})}
	p.cmd = exec.Command(bin, args...)
	p.cmd.Env, p.cmd.Stdout, p.cmd.Stderr = env, p, p
	if err := p.cmd.Start(); err != nil {
		tb.Fatalf("starting %s: %v", name, err)
	}
	go func() { _ = p.cmd.Wait(); close(p.done) }()
	tb.Cleanup(func() {
		p.stop()
		if tb.Failed() {
			p.mu.Lock()
			tb.Logf("%s output (last 4 KiB):\n%s", name, managerproc.Tail(p.out.String(), 4096))
			p.mu.Unlock()
		}
	})
	return p
}

// alive reports whether the process has not exited.
func (p *hostProcess) alive() bool {
	select {
	case <-p.done:
		return false
	default:
		return true
	}
}

// stop sends SIGTERM and waits for the exit, killing the process after 20 s.
func (p *hostProcess) stop() {
	p.once.Do(func() {
		_ = p.cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-p.done:
		case <-time.After(20 * time.Second):
			_ = p.cmd.Process.Kill()
			<-p.done
		}
	})
}

// procSample is the CPU time and memory of a process at one moment, from /proc.
type procSample struct {
	cpu      time.Duration // user + system
	rss, hwm int64         // VmRSS and VmHWM (peak), bytes
}

// sampleProc reads the process's CPU time and memory from /proc.
func sampleProc(pid int) (procSample, error) {
	u, err := procstat.Read(pid)
	return procSample{cpu: u.CPU, rss: u.RSS, hwm: u.PeakRSS}, err
}

// managerUserAgent starts the user agent of managerBinary's API requests (client-go names the binary).
const managerUserAgent = "siteops-bench-manager-"

// formatMiB formats bytes in MiB with three significant digits.
func formatMiB(b int64) string { return fmt.Sprintf("%.3g MiB", float64(b)/(1<<20)) }

// startClusterManager runs the manager (managerBinary; its API requests' user agent starts with
// managerUserAgent) against the cluster as a single instance: no leader election, no
// standby mode, webhooks, metrics and the push receiver off, probes on base+21, plus extra flags.
func (bc *benchCluster) startClusterManager(tb testing.TB, extra ...string) *hostProcess {
	tb.Helper()
	args := append([]string{
		"--kubeconfig=" + bc.kubeconfig, "--leader-elect=false", "--standby=false", "--standby-bind-address=0",
		"--enable-webhooks=false", "--metrics-bind-address=0", "--receiver-bind-address=0",
		fmt.Sprintf("--health-probe-bind-address=127.0.0.1:%d", bc.portBase+21), "--work-dir=" + tb.TempDir(),
	}, extra...)
	return startHostProcess(tb, "siteops manager", os.Environ(), managerBinary(tb), args...)
}

// startAnchorKCM runs a second kube-controller-manager (the cluster's binary) with only the given
// controllers and otherwise default flags (client QPS 20, burst 30), listening on base+20.
func (bc *benchCluster) startAnchorKCM(tb testing.TB, controllers string) *hostProcess {
	tb.Helper()
	kube, err := testenv.PinnedDir("kube")
	if err != nil {
		tb.Fatalf("locating kube-controller-manager: %v", err)
	}
	bin := filepath.Join(kube, "kube-controller-manager")
	return startHostProcess(tb, "anchor kube-controller-manager", os.Environ(), bin,
		"--kubeconfig="+bc.kubeconfig, "--authentication-kubeconfig="+bc.kubeconfig,
		"--authorization-kubeconfig="+bc.kubeconfig, "--bind-address=127.0.0.1",
		fmt.Sprintf("--secure-port=%d", bc.portBase+20), "--leader-elect=false",
		"--use-service-account-credentials=false", "--controllers="+controllers)
}
