package bench

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
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

// managerBinary builds ./cmd/manager once per test binary into a temporary folder, with CGO off as `make
// build` does (without -trimpath, so the build cache of the tests serves it).
func managerBinary(tb testing.TB) string {
	tb.Helper()
	buildManagerOnce.Do(func() {
		out := filepath.Join(os.TempDir(), fmt.Sprintf("siteops-bench-manager-%d", os.Getpid()))
		cmd := exec.Command("go", "build", "-o", out, "./cmd/manager")
		cmd.Dir = testenv.RepoRoot()
		cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
		if b, err := cmd.CombinedOutput(); err != nil {
			buildManagerOnce.err = fmt.Errorf("go build ./cmd/manager: %w\n%s", err, b)
			return
		}
		buildManagerOnce.path = out
	})
	if buildManagerOnce.err != nil {
		tb.Fatal(buildManagerOnce.err)
	}
	return buildManagerOnce.path
}

// managerProcess is a real bin/manager process on the host, its log kept in memory.
type managerProcess struct {
	name                  string
	cmd                   *exec.Cmd
	mu                    sync.Mutex
	log                   bytes.Buffer
	probePort, shadowPort int
	done                  chan struct{}
	stopOnce              sync.Once
}

// Write appends to the log; the process' stdout and stderr.
func (m *managerProcess) Write(p []byte) (int, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.log.Write(p)
}

// startManagerProcess runs the manager with kubeconfig, webhooks, metrics and the push receiver off, JSON
// logs at V(1) with nanosecond timestamps (its "api write" lines), probes and the shadow report on free
// loopback ports, and extra flags (a repeated flag overrides). It is killed on cleanup if still running.
func startManagerProcess(tb testing.TB, name, kubeconfig string, extra ...string) *managerProcess {
	tb.Helper()
	m := &managerProcess{name: name, probePort: loopbackPort(tb), shadowPort: loopbackPort(tb), done: make(chan struct{})}
	args := append([]string{
		"--kubeconfig=" + kubeconfig,
		"--enable-webhooks=false",
		"--metrics-bind-address=0",
		"--receiver-bind-address=0",
		fmt.Sprintf("--health-probe-bind-address=127.0.0.1:%d", m.probePort),
		fmt.Sprintf("--shadow-bind-address=127.0.0.1:%d", m.shadowPort),
		"--work-dir=" + tb.TempDir(),
		"--zap-log-level=1",
		"--zap-time-encoding=rfc3339nano",
	}, extra...)
	m.cmd = exec.Command(managerBinary(tb), args...)
	m.cmd.Stdout, m.cmd.Stderr = m, m
	if err := m.cmd.Start(); err != nil {
		tb.Fatalf("starting manager %s: %v", name, err)
	}
	go func() { _ = m.cmd.Wait(); close(m.done) }()
	tb.Cleanup(func() {
		m.stop()
		if tb.Failed() {
			tb.Logf("manager %s log (last 4 KiB):\n%s", name, tail(m.logs(), 4096))
		}
	})
	return m
}

// stop sends SIGTERM and waits for the process to exit (up to a minute, then it is killed).
func (m *managerProcess) stop() {
	m.stopOnce.Do(func() {
		_ = m.cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-m.done:
		case <-time.After(time.Minute):
			_ = m.cmd.Process.Kill()
			<-m.done
		}
	})
}

// logs returns what the process printed so far.
func (m *managerProcess) logs() string {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.log.String()
}

// ready reports whether /readyz answers 200.
func (m *managerProcess) ready() bool {
	resp, err := http.Get(fmt.Sprintf("http://127.0.0.1:%d/readyz", m.probePort))
	if err != nil {
		return false
	}
	_ = resp.Body.Close()
	return resp.StatusCode == http.StatusOK
}

// mode reads GET /shadow: "shadow" while the process does not hold the lease, "leader" once it does, "" when
// it does not answer.
func (m *managerProcess) mode() string {
	resp, err := http.Get(fmt.Sprintf("http://127.0.0.1:%d/shadow", m.shadowPort))
	if err != nil {
		return ""
	}
	defer func() { _ = resp.Body.Close() }()
	b, _ := io.ReadAll(resp.Body)
	var s struct {
		Mode string `json:"mode"`
	}
	_ = json.Unmarshal(b, &s)
	return s.Mode
}

// writeSpan is the first and last persisted API write (not a dry run) a manager process logged.
type writeSpan struct {
	first, last time.Time
	count       int
}

// writeSpanOf reads the JSON "api write" lines (controllers/shadow, V(1)) of a manager log.
func writeSpanOf(log string) writeSpan {
	var s writeSpan
	sc := bufio.NewScanner(strings.NewReader(log))
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		line := sc.Bytes()
		if !bytes.Contains(line, []byte(`"api write"`)) {
			continue
		}
		var l struct {
			TS     string `json:"ts"`
			Msg    string `json:"msg"`
			DryRun bool   `json:"dryRun"`
		}
		if json.Unmarshal(line, &l) != nil || l.Msg != "api write" || l.DryRun {
			continue
		}
		t, err := time.Parse(time.RFC3339Nano, l.TS)
		if err != nil {
			continue
		}
		if s.count == 0 || t.Before(s.first) {
			s.first = t
		}
		if t.After(s.last) {
			s.last = t
		}
		s.count++
	}
	return s
}

// loopbackPort asks the kernel for an unused port on 127.0.0.1.
func loopbackPort(tb testing.TB) int {
	tb.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatal(err)
	}
	defer func() { _ = l.Close() }()
	return l.Addr().(*net.TCPAddr).Port
}

// tail is the last n bytes of s.
func tail(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[len(s)-n:]
}

// waitUntil polls cond every 50 ms until it holds, failing tb after timeout with what.
func waitUntil(tb testing.TB, timeout time.Duration, what string, cond func() bool) {
	tb.Helper()
	deadline := time.Now().Add(timeout)
	for !cond() {
		if time.Now().After(deadline) {
			tb.Fatalf("timed out after %s waiting for %s", timeout, what)
		}
		time.Sleep(50 * time.Millisecond)
	}
}
