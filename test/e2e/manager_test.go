package e2e

import (
	"bytes"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
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

// e2eVersion is the VERSION the end-to-end tests build the binaries with.
const e2eVersion = "v0.0.0-e2e"

// managerBinary builds the manager and the siteops CLI once per test run, linked with `make build`'s version
// ldflags (`make ldflags`), and returns the manager's path; the CLI is beside it. It skips `make build`'s
// -trimpath, which would recompile every package the unit tests have already compiled.
func managerBinary(t testing.TB) string {
	t.Helper()
	buildManagerOnce.Do(func() {
		buildManagerOnce.path, buildManagerOnce.err = buildBinaries()
	})
	if buildManagerOnce.err != nil {
		t.Fatal(buildManagerOnce.err)
	}
	return buildManagerOnce.path
}

// buildBinaries builds cmd/manager and cmd/siteops into a temporary folder and returns the manager's path.
func buildBinaries() (string, error) {
	root := testenv.RepoRoot()
	mk := exec.Command("make", "-s", "--no-print-directory", "ldflags", "VERSION="+e2eVersion)
	mk.Dir = root
	ldflags, err := mk.Output()
	if err != nil {
		return "", fmt.Errorf("make ldflags: %w", err)
	}
	dir, err := os.MkdirTemp("", "siteops-e2e-bin-")
	if err != nil {
		return "", err
	}
	for _, name := range []string{"manager", "siteops"} {
		cmd := exec.Command("go", "build", "-ldflags", strings.TrimSpace(string(ldflags)), "-o", filepath.Join(dir, name), "./cmd/"+name)
		cmd.Dir = root
		cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
		if b, err := cmd.CombinedOutput(); err != nil {
			return "", fmt.Errorf("go build ./cmd/%s: %w\n%s", name, err, b)
		}
	}
	return filepath.Join(dir, "manager"), nil
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
