//go:build e2e

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

// Package makerun runs `make run` as a person does, with no kubeconfig, so that it starts its own local
// fleet: it waits until the fleet is ready, drives it with the commands make run prints, and stops it with
// Ctrl-C (SIGINT to make's process group).
package makerun

import (
	"bufio"
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/siteops/siteops/test/procstat"
	"github.com/siteops/siteops/test/testenv"
)

// managerPorts are the host manager's listeners that hack/run.sh binds (metrics, probes, receiver).
var managerPorts = []int{8443, 8081, 9292}

// hubPorts is how many ports from the port base the fleet may use: the hub's and the sites'.
const hubPorts = 100

// makeRun is one `make run` in a process group of its own.
type makeRun struct {
	t        *testing.T
	cmd      *exec.Cmd
	marker   string // SITEOPS_MAKERUN_TEST=<marker> is in the environment of every process it starts
	dir      string // the fleet's state folder
	portBase int
	home     string
	exited   chan struct{}

	mu  sync.Mutex
	out bytes.Buffer // stdout and stderr
}

// startMakeRun starts `make run` with an empty HOME and a KUBECONFIG naming no file, so that no cluster is
// reachable, and its own port base and state folder: SITEOPS_E2E_PORT_BASE (default 26800) and
// SITEOPS_CLUSTER_DIR (default $SITEOPS_CACHE/run-cluster-<port base>). The Go caches and SITEOPS_CACHE stay
// this process', so nothing is built twice.
func startMakeRun(t *testing.T) *makeRun {
	t.Helper()
	pb := 26800
	if s := os.Getenv("SITEOPS_E2E_PORT_BASE"); s != "" {
		var err error
		if pb, err = strconv.Atoi(s); err != nil {
			t.Fatalf("SITEOPS_E2E_PORT_BASE=%q: %v", s, err)
		}
	}
	cache := testenv.Cache()
	dir := os.Getenv("SITEOPS_CLUSTER_DIR")
	if dir == "" {
		dir = filepath.Join(cache, fmt.Sprintf("run-cluster-%d", pb))
	}
	for _, p := range fleetPorts(pb) {
		if !portFree(p) {
			t.Fatalf("port %d is in use before make run starts: another fleet or manager runs here", p)
		}
	}
	id := make([]byte, 8)
	_, _ = rand.Read(id)
	r := &makeRun{t: t, marker: hex.EncodeToString(id), dir: dir, portBase: pb, home: t.TempDir(),
		exited: make(chan struct{})}
	env := []string{
		"HOME=" + r.home,
		"KUBECONFIG=" + filepath.Join(r.home, "no-such-kubeconfig"),
		"SITEOPS_CACHE=" + cache,
		"SITEOPS_CLUSTER_DIR=" + dir,
		fmt.Sprintf("SITEOPS_CLUSTER_PORT_BASE=%d", pb),
		"SITEOPS_MAKERUN_TEST=" + r.marker,
	}
	for _, k := range []string{"GOCACHE", "GOMODCACHE", "GOPATH"} {
		out, err := exec.Command("go", "env", k).Output()
		if err != nil {
			t.Fatalf("go env %s: %v", k, err)
		}
		env = append(env, k+"="+strings.TrimSpace(string(out)))
	}
	r.cmd = exec.Command("make", "--no-print-directory", "run")
	r.cmd.Dir = testenv.RepoRoot()
	r.cmd.Env = append(withoutKeys(os.Environ(), "HOME", "KUBECONFIG", "SITEOPS_CLUSTER_SITES",
		"SITEOPS_CLUSTER_SITE_COMPONENTS", "SITEOPS_CLUSTER_COMPONENTS"), env...)
	r.cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	r.cmd.Stdout, r.cmd.Stderr = r, r
	if err := r.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { _ = r.cmd.Wait(); close(r.exited) }()
	t.Cleanup(r.killLeftovers)
	return r
}

// Write keeps make run's output.
func (r *makeRun) Write(b []byte) (int, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.out.Write(b)
}

// output is what make run printed so far.
func (r *makeRun) output() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.out.String()
}

// waitReady waits until make run prints its exports (it does once the fleet is ready) and its manager's
// /readyz answers; it returns the exports, one "KEY=value" per element, $PATH expanded.
func (r *makeRun) waitReady(timeout time.Duration) []string {
	r.t.Helper()
	deadline := time.Now().Add(timeout)
	for {
		if exports := parseExports(r.output()); len(exports) > 0 && managerReady() {
			return exports
		}
		select {
		case <-r.exited:
			r.t.Fatalf("make run exited before it was ready:\n%s", r.output())
		case <-time.After(time.Second):
		}
		if time.Now().After(deadline) {
			r.t.Fatalf("make run not ready after %s:\n%s", timeout, r.output())
		}
	}
}

// interrupt sends SIGINT to make run's process group, as Ctrl-C in its terminal does, and waits until make
// exits.
func (r *makeRun) interrupt(timeout time.Duration) {
	r.t.Helper()
	if err := syscall.Kill(-r.cmd.Process.Pid, syscall.SIGINT); err != nil {
		r.t.Fatalf("SIGINT to make run's process group: %v", err)
	}
	select {
	case <-r.exited:
	case <-time.After(timeout):
		r.t.Fatalf("make run still runs %s after SIGINT:\n%s", timeout, r.output())
	}
}

// processes are the processes still running whose environment holds make run's marker: make run's own
// process group and everything it started, setsid or not (but redis-server, which rewrites its environment
// with its process title: busyPorts finds it).
func (r *makeRun) processes() []string {
	want := []byte("SITEOPS_MAKERUN_TEST=" + r.marker + "\x00")
	entries, _ := os.ReadDir("/proc")
	var left []string
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == os.Getpid() {
			continue
		}
		env, err := os.ReadFile(filepath.Join("/proc", e.Name(), "environ"))
		if err != nil || !bytes.Contains(env, want) {
			continue
		}
		stat, _ := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if f := strings.Fields(string(stat[bytes.LastIndexByte(stat, ')')+1:])); len(f) > 0 && f[0] == "Z" {
			continue // a zombie has exited; its parent has not reaped it yet
		}
		cmdline, _ := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		left = append(left, fmt.Sprintf("%d %s", pid, strings.ReplaceAll(string(cmdline), "\x00", " ")))
	}
	return left
}

// memory is the sum of the resident memory (RSS) of every process make run started, and how many there are.
func (r *makeRun) memory() (rss int64, n int) {
	for _, p := range r.processes() {
		pid, _ := strconv.Atoi(strings.Fields(p)[0])
		if u, err := procstat.Read(pid); err == nil {
			rss, n = rss+u.RSS, n+1
		}
	}
	return rss, n
}

// busyPorts are the fleet's and the host manager's ports something still listens on.
func (r *makeRun) busyPorts() []int {
	var busy []int
	for _, p := range fleetPorts(r.portBase) {
		if !portFree(p) {
			busy = append(busy, p)
		}
	}
	return busy
}

// killLeftovers stops make run if it still runs after the test, with Ctrl-C, then ends with SIGKILL every
// process it started that still runs: a failed test leaves no fleet behind.
func (r *makeRun) killLeftovers() {
	select {
	case <-r.exited:
	default:
		_ = syscall.Kill(-r.cmd.Process.Pid, syscall.SIGINT)
		select {
		case <-r.exited:
		case <-time.After(2 * time.Minute):
			_ = syscall.Kill(-r.cmd.Process.Pid, syscall.SIGKILL)
		}
	}
	for _, p := range r.processes() {
		pid, _ := strconv.Atoi(strings.Fields(p)[0])
		_ = syscall.Kill(pid, syscall.SIGKILL)
	}
	if r.t.Failed() {
		r.t.Logf("make run's output:\n%s", r.output())
	}
}

// fleetPorts are the ports a fleet at port base pb and the host manager use.
func fleetPorts(pb int) []int {
	ports := append([]int(nil), managerPorts...)
	for p := pb; p < pb+hubPorts; p++ {
		ports = append(ports, p)
	}
	return ports
}

// portFree reports whether nothing listens on 127.0.0.1:port.
func portFree(port int) bool {
	l, err := net.Listen("tcp", fmt.Sprintf("127.0.0.1:%d", port))
	if err != nil {
		return false
	}
	_ = l.Close()
	return true
}

// managerReady reports whether the host manager's /readyz answers 200.
func managerReady() bool {
	c, err := net.DialTimeout("tcp", "127.0.0.1:8081", time.Second)
	if err != nil {
		return false
	}
	defer func() { _ = c.Close() }()
	_ = c.SetDeadline(time.Now().Add(2 * time.Second))
	_, _ = io.WriteString(c, "GET /readyz HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n")
	line, err := bufio.NewReader(c).ReadString('\n')
	return err == nil && strings.Contains(line, " 200 ")
}

// parseExports reads the lines "  export K=V [K=V…]" make run printed, in order.
func parseExports(out string) []string {
	var kvs []string
	for _, line := range strings.Split(out, "\n") {
		line = strings.TrimSpace(line)
		if !strings.HasPrefix(line, "export ") {
			continue
		}
		for _, kv := range strings.Fields(strings.TrimPrefix(line, "export ")) {
			if strings.Contains(kv, "=") {
				kvs = append(kvs, strings.ReplaceAll(kv, "$PATH", os.Getenv("PATH")))
			}
		}
	}
	return kvs
}

// withoutKeys is env without the variables named keys.
func withoutKeys(env []string, keys ...string) []string {
	var out []string
	for _, kv := range env {
		k, _, _ := strings.Cut(kv, "=")
		drop := false
		for _, key := range keys {
			drop = drop || k == key
		}
		if !drop {
			out = append(out, kv)
		}
	}
	return out
}
