package e2e

import (
	"bytes"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/siteops/siteops/test/testenv"
)

var buildManagerOnce struct {
	sync.Once
	path string
	err  error
}

// managerBinary builds bin/manager once per test run, as `make build` does.
func managerBinary(t testing.TB) string {
	t.Helper()
	buildManagerOnce.Do(func() {
		root := testenv.RepoRoot()
		out := filepath.Join(os.TempDir(), fmt.Sprintf("siteops-e2e-manager-%d", os.Getpid()))
		cmd := exec.Command("go", "build", "-o", out, "./cmd/manager")
		cmd.Dir = root
		cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
		if b, err := cmd.CombinedOutput(); err != nil {
			buildManagerOnce.err = fmt.Errorf("go build ./cmd/manager: %w\n%s", err, b)
			return
		}
		buildManagerOnce.path = out
	})
	if buildManagerOnce.err != nil {
		t.Fatal(buildManagerOnce.err)
	}
	return buildManagerOnce.path
}

// manager is a siteops manager process running on the host against the local cluster.
type manager struct {
	name      string
	cmd       *exec.Cmd
	log       *bytes.Buffer
	mu        *sync.Mutex
	probePort int
	// receiverPort and shadowPort serve the push receiver and GET /shadow, /writes.
	receiverPort, shadowPort int
	done                     chan struct{}
	waitErr                  error
	terminated               bool
}

// lockedWriter serialises writes to a buffer shared with readers.
type lockedWriter struct {
	mu  *sync.Mutex
	buf *bytes.Buffer
}

func (w lockedWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.buf.Write(p)
}

// freePort asks the kernel for an unused loopback port.
func freePort(t testing.TB) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = l.Close() }()
	return l.Addr().(*net.TCPAddr).Port
}

// startManager runs the manager with leader election in namespace siteops-system, webhooks off, every listener
// on a free loopback port, plus extra flags (a repeated flag overrides: the last one wins). It is stopped (SIGTERM) on test cleanup, and its log is printed
// when the test failed.
func startManager(t testing.TB, name string, extra ...string) *manager {
	t.Helper()
	bin := managerBinary(t)
	_, _ = tryKubectl("create", "namespace", "siteops-system")
	m := &manager{name: name, log: &bytes.Buffer{}, mu: &sync.Mutex{}, probePort: freePort(t),
		receiverPort: freePort(t), shadowPort: freePort(t), done: make(chan struct{})}
	args := append([]string{
		"--kubeconfig=" + cluster.kubeconfig,
		"--leader-election-namespace=siteops-system",
		"--enable-webhooks=false",
		fmt.Sprintf("--metrics-bind-address=127.0.0.1:%d", freePort(t)),
		fmt.Sprintf("--health-probe-bind-address=127.0.0.1:%d", m.probePort),
		fmt.Sprintf("--receiver-bind-address=127.0.0.1:%d", m.receiverPort),
		fmt.Sprintf("--shadow-bind-address=127.0.0.1:%d", m.shadowPort),
		"--work-dir=" + t.TempDir(),
	}, extra...)
	m.cmd = exec.Command(bin, args...)
	w := lockedWriter{mu: m.mu, buf: m.log}
	m.cmd.Stdout, m.cmd.Stderr = w, w
	if err := m.cmd.Start(); err != nil {
		t.Fatalf("starting manager %s: %v", name, err)
	}
	go func() { m.waitErr = m.cmd.Wait(); close(m.done) }()
	t.Cleanup(func() {
		m.stop(syscall.SIGTERM)
		if t.Failed() {
			t.Logf("manager %s log:\n%s", name, m.logs())
		}
	})
	return m
}

// logs returns what the manager printed so far.
func (m *manager) logs() string {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.log.String()
}

// stop sends sig and waits up to 20 s for the process to exit, then kills it.
func (m *manager) stop(sig syscall.Signal) {
	if m.terminated {
		return
	}
	m.terminated = true
	_ = m.cmd.Process.Signal(sig)
	select {
	case <-m.done:
	case <-time.After(20 * time.Second):
		_ = m.cmd.Process.Kill()
		<-m.done
	}
}
