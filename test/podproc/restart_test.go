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

package podproc

import (
	"context"
	"fmt"
	"os"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes/fake"
	clocktesting "k8s.io/utils/clock/testing"
)

// logLines is a Logf that keeps what the harness logged.
type logLines struct {
	t     *testing.T
	mu    sync.Mutex
	lines []string
}

func (l *logLines) logf(format string, args ...any) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.lines = append(l.lines, fmt.Sprintf(format, args...))
	l.t.Logf(format, args...)
}

func (l *logLines) has(s string) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, line := range l.lines {
		if strings.Contains(line, s) {
			return true
		}
	}
	return false
}

// waitUntil polls cond until it holds, failing the test after 30s.
func waitUntil(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(30 * time.Second); !cond(); time.Sleep(50 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
	}
}

// container is the status of pod m-1's container, read from cs.
func container(t *testing.T, cs *fake.Clientset) (corev1.ContainerStatus, bool) {
	t.Helper()
	pod, err := cs.CoreV1().Pods("ns").Get(context.Background(), "m-1", metav1.GetOptions{})
	if err != nil || len(pod.Status.ContainerStatuses) != 1 {
		return corev1.ContainerStatus{}, false
	}
	return pod.Status.ContainerStatuses[0], podReady(pod)
}

func TestHarnessRestartsAProcessThatDiesAndNotOneWhosePodWent(t *testing.T) {
	t.Setenv(fakeManagerEnv, "1")
	// A pod bound and Running, as kwok's pod-process-backed stage leaves it.
	pod := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: "m-1", Namespace: "ns", UID: "uid-1",
			Labels: map[string]string{"app": "m", "rollouts-pod-template-hash": "abc"}},
		Spec: corev1.PodSpec{NodeName: "kwok-node-0", Containers: []corev1.Container{{Name: "manager"}}},
		Status: corev1.PodStatus{Phase: corev1.PodRunning, ContainerStatuses: []corev1.ContainerStatus{{Name: "manager",
			State: corev1.ContainerState{Running: &corev1.ContainerStateRunning{StartedAt: metav1.Now()}}}}},
	}
	cs := fake.NewClientset(pod)
	clk := clocktesting.NewFakeClock(time.Now())
	logs := &logLines{t: t}
	h := New(Config{Client: cs, Namespace: "ns", Selector: "app=m", Binary: os.Args[0], WorkDir: t.TempDir(),
		RestartDelay: time.Second, Clock: clk, Logf: logs.logf})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	if err := h.Start(ctx); err != nil {
		t.Fatal(err)
	}
	defer h.Stop()
	waitUntil(t, "the pod Ready", func() bool { _, ready := container(t, cs); return ready })
	first := h.Process("m-1")

	// SIGKILL from outside: the pod turns NotReady with its container terminated by the signal.
	if err := syscall.Kill(first.Pid(), syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	waitUntil(t, "the container terminated with exit code 137, the pod NotReady", func() bool {
		c, ready := container(t, cs)
		return !ready && c.State.Terminated != nil && c.State.Terminated.ExitCode == 137
	})
	if first.Terminated() {
		t.Fatal("a process that died on its own counts as terminated by the harness")
	}
	// The back-off holds the restart until the clock passes it.
	waitUntil(t, "the restart back-off", clk.HasWaiters)
	if got := h.Process("m-1"); got != first {
		t.Fatalf("pid %d started before the back-off passed", got.Pid())
	}
	clk.Step(time.Second)
	waitUntil(t, "a new process, restartCount 1 and the pod Ready again", func() bool {
		c, ready := container(t, cs)
		return h.Process("m-1") != first && ready && c.RestartCount == 1 && c.State.Running != nil &&
			c.LastTerminationState.Terminated != nil && c.LastTerminationState.Terminated.ExitCode == 137
	})
	second := h.Process("m-1")
	if second.Restarts != 1 || second.Hash != "abc" || second.UID != "uid-1" {
		t.Fatalf("restarted process: restarts %d, hash %q, uid %q; want 1, abc, uid-1", second.Restarts, second.Hash,
			second.UID)
	}
	if logs := second.Logs(); !strings.Contains(logs, "pod=m-1 hash=abc") {
		t.Fatalf("the restarted process did not get the pod's name and hash: %q", logs)
	}

	// Killed again, and the pod deleted during the back-off: the ReplicaSet replaces a deleted pod, so the
	// harness does not restart its process.
	if err := syscall.Kill(second.Pid(), syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	waitUntil(t, "the second process' restart back-off", func() bool { return exitedNow(second) && clk.HasWaiters() })
	if err := cs.CoreV1().Pods("ns").Delete(ctx, "m-1", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	waitUntil(t, "the harness to see the pod go", second.Terminated)
	clk.Step(restartDelay(time.Second, 1))
	waitUntil(t, "the harness to refuse the restart",
		func() bool { return logs.has("pod m-1 is gone: its manager is not restarted") })
	if n := len(h.Processes()); n != 2 {
		t.Fatalf("%d processes ran for the pod, want 2 (no restart after the pod went)", n)
	}
}

// exitedNow reports whether p has exited.
func exitedNow(p *PodProcess) bool {
	select {
	case <-p.Exited():
		return true
	default:
		return false
	}
}

func TestRestartDelayDoublesUpToTheCap(t *testing.T) {
	for _, tc := range []struct {
		restarts int32
		want     time.Duration
	}{{0, time.Second}, {1, 2 * time.Second}, {3, 8 * time.Second}, {6, maxRestartDelay}, {40, maxRestartDelay}} {
		if got := restartDelay(time.Second, tc.restarts); got != tc.want {
			t.Errorf("restartDelay(1s, %d) = %s, want %s", tc.restarts, got, tc.want)
		}
	}
}
