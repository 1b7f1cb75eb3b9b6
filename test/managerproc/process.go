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

// Package managerproc runs real bin/manager processes on the host for the end-to-end tests and the
// benchmarks: it builds the binaries, starts and stops processes, keeps their logs, reads their probes and
// standby reports, and reads the "api write" lines their logs hold.
package managerproc

import (
	"bytes"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"sync"
	"syscall"
	"testing"
	"time"
)

// StopGrace is how long Stop waits for a process to exit before it kills it.
const StopGrace = time.Minute

// Process is a manager process on the host; its stdout and stderr are kept in memory.
type Process struct {
	// Name names the process in failure messages.
	Name string
	// ProbePort serves /readyz and /healthz, StandbyPort GET /standby, both on 127.0.0.1.
	ProbePort, StandbyPort int

	cmd      *exec.Cmd
	mu       sync.Mutex
	log      bytes.Buffer
	done     chan struct{}
	stopOnce sync.Once
}

// Start runs bin with its probes and standby report on free loopback ports (ProbePort, StandbyPort), a fresh
// --work-dir, then args: a repeated flag overrides, the last one wins. The process gets SIGTERM on cleanup
// if it still runs, and the end of its log is printed when the test failed.
func Start(tb testing.TB, name, bin string, args ...string) *Process {
	tb.Helper()
	// StandbyMode and the e2e's analysis read the report on loopback without a token.
	p, err := Launch(name, bin, tb.TempDir(), nil, append([]string{"--standby-secure=false"}, args...)...)
	if err != nil {
		tb.Fatalf("starting manager %s: %v", name, err)
	}
	tb.Cleanup(func() {
		p.Stop(syscall.SIGTERM)
		if tb.Failed() {
			tb.Logf("manager %s log (last 16 KiB):\n%s", name, Tail(p.Logs(), 16<<10))
		}
	})
	return p
}

// Launch is Start outside a test: the process gets env added to this process' environment, workDir as its
// --work-dir, then args; the caller stops it.
func Launch(name, bin, workDir string, env []string, args ...string) (*Process, error) {
	probe, err := FreeLoopbackPort()
	if err != nil {
		return nil, err
	}
	standbyPort, err := FreeLoopbackPort()
	if err != nil {
		return nil, err
	}
	p := &Process{Name: name, ProbePort: probe, StandbyPort: standbyPort, done: make(chan struct{})}
	all := append([]string{
		fmt.Sprintf("--health-probe-bind-address=127.0.0.1:%d", p.ProbePort),
		fmt.Sprintf("--standby-bind-address=127.0.0.1:%d", p.StandbyPort),
		"--work-dir=" + workDir,
	}, args...)
	p.cmd = exec.Command(bin, all...)
	p.cmd.Env = append(os.Environ(), env...)
	p.cmd.Stdout, p.cmd.Stderr = p, p
	if err := p.cmd.Start(); err != nil {
		return nil, err
	}
	go func() { _ = p.cmd.Wait(); close(p.done) }()
	return p, nil
}

// Write appends to the log: the process' stdout and stderr.
func (p *Process) Write(b []byte) (int, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.log.Write(b)
}

// Logs returns what the process printed so far.
func (p *Process) Logs() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.log.String()
}

// Pid is the process id.
func (p *Process) Pid() int { return p.cmd.Process.Pid }

// Stop sends sig once and waits for the process to exit, killing it after StopGrace. Later calls return
// at once.
func (p *Process) Stop(sig syscall.Signal) {
	p.stopOnce.Do(func() {
		_ = p.cmd.Process.Signal(sig)
		select {
		case <-p.done:
		case <-time.After(StopGrace):
			_ = p.cmd.Process.Kill()
			<-p.done
		}
	})
}

// Ready reports whether /readyz answers 200.
func (p *Process) Ready() bool {
	resp, err := http.Get(fmt.Sprintf("http://127.0.0.1:%d/readyz", p.ProbePort))
	if err != nil {
		return false
	}
	_ = resp.Body.Close()
	return resp.StatusCode == http.StatusOK
}

// Mode is the process' standby-report mode (see StandbyMode).
func (p *Process) Mode() string { return StandbyMode(p.StandbyPort) }

// LoopbackPort asks the kernel for an unused port on 127.0.0.1, one this process has not been given before.
func LoopbackPort(tb testing.TB) int {
	tb.Helper()
	port, err := FreeLoopbackPort()
	if err != nil {
		tb.Fatal(err)
	}
	return port
}

// givenPorts are the ports FreeLoopbackPort has handed out in this process. The kernel may give a port again
// once the listener that found it is closed, and a manager started with two of its listeners on the same port
// fails to bind the second ("address already in use").
var givenPorts = struct {
	sync.Mutex
	ports map[int]bool
}{ports: map[int]bool{}}

// FreeLoopbackPort is LoopbackPort outside a test.
func FreeLoopbackPort() (int, error) {
	givenPorts.Lock()
	defer givenPorts.Unlock()
	for {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return 0, err
		}
		port := l.Addr().(*net.TCPAddr).Port
		_ = l.Close()
		if !givenPorts.ports[port] {
			givenPorts.ports[port] = true
			return port, nil
		}
	}
}

// Exited is closed once the process has exited.
func (p *Process) Exited() <-chan struct{} { return p.done }

// ExitCode is the process' exit status as a container runtime reports it once Exited is closed: the code it
// exited with, or 128 plus the signal that ended it (137 for SIGKILL); -1 while it runs.
func (p *Process) ExitCode() int {
	select {
	case <-p.done:
	default:
		return -1
	}
	if ws, ok := p.cmd.ProcessState.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return 128 + int(ws.Signal())
	}
	return p.cmd.ProcessState.ExitCode()
}

// Tail is the last n bytes of s: the end of a long process log.
func Tail(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[len(s)-n:]
}
