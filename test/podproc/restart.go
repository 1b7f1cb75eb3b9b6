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
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/util/retry"

	"github.com/siteops/siteops/test/managerproc"
)

// maxRestartDelay caps the restart back-off, as the kubelet caps CrashLoopBackOff.
const maxRestartDelay = time.Minute

// crashed handles p exiting on its own as the kubelet handles a dead container of a pod with restartPolicy
// Always: the pod turns NotReady with the container terminated, and after the back-off a new process starts
// for the same pod, unless the pod went meanwhile or the harness stops.
func (h *Harness) crashed(ctx context.Context, p *PodProcess) {
	code, died := int32(p.ExitCode()), metav1.Now()
	h.cfg.Logf("podproc: pod %s: manager pid %d exited on its own (exit code %d):\n%s", p.Pod, p.Pid(), code,
		managerproc.Tail(p.Logs(), 4<<10))
	dead := &corev1.ContainerStateTerminated{ExitCode: code, Reason: "Error", FinishedAt: died}
	if err := h.updateStatus(ctx, p, func(s *corev1.PodStatus) {
		notReady(s)
		for i := range s.ContainerStatuses {
			dead.StartedAt = startedAt(s.ContainerStatuses[i].State)
			s.ContainerStatuses[i].State = corev1.ContainerState{Terminated: dead}
		}
	}); err != nil {
		h.cfg.Logf("podproc: pod %s: writing its container terminated: %v", p.Pod, err)
	}
	delay := restartDelay(h.cfg.RestartDelay, p.Restarts)
	h.cfg.Logf("podproc: pod %s: restarting its manager in %s", p.Pod, delay)
	select {
	case <-ctx.Done():
		return
	case <-h.cfg.Clock.After(delay):
	}
	next := h.restart(ctx, p)
	if next == nil {
		return
	}
	if err := h.updateStatus(ctx, next, func(s *corev1.PodStatus) {
		for i := range s.ContainerStatuses {
			c := &s.ContainerStatuses[i]
			c.RestartCount, c.Ready = next.Restarts, false
			c.LastTerminationState = corev1.ContainerState{Terminated: dead}
			c.State = corev1.ContainerState{Running: &corev1.ContainerStateRunning{StartedAt: metav1.Now()}}
		}
	}); err != nil {
		h.cfg.Logf("podproc: pod %s: writing its restart count: %v", p.Pod, err)
	}
}

// restart starts the next process of dead's pod, unless the pod was deleted (then the harness no longer
// counts dead as its process) or the harness stops; nil when it started none.
func (h *Harness) restart(ctx context.Context, dead *PodProcess) *PodProcess {
	h.mu.Lock()
	defer h.mu.Unlock()
	if ctx.Err() != nil {
		return nil
	}
	if h.procs[dead.UID] != dead {
		h.cfg.Logf("podproc: pod %s is gone: its manager is not restarted", dead.Pod)
		return nil
	}
	pod, err := h.pods.Pods(h.cfg.Namespace).Get(dead.Pod)
	if err != nil || pod.UID != dead.UID || pod.DeletionTimestamp != nil {
		delete(h.procs, dead.UID)
		h.cfg.Logf("podproc: pod %s is gone: its manager is not restarted", dead.Pod)
		return nil
	}
	next := h.run(ctx, pod, dead.Restarts+1)
	if next == nil {
		delete(h.procs, dead.UID)
		return nil
	}
	h.cfg.Logf("podproc: pod %s: restarted its manager (restart %d): pid %d", pod.Name, next.Restarts, next.Pid())
	return next
}

// restartDelay is the back-off before restart number restarts+1: first, doubled per restart, at most
// maxRestartDelay.
func restartDelay(first time.Duration, restarts int32) time.Duration {
	d := first
	for i := int32(0); i < restarts && d < maxRestartDelay; i++ {
		d *= 2
	}
	return min(d, maxRestartDelay)
}

// updateStatus changes the status of p's pod with change, retrying on conflicts; a pod that is gone,
// terminating, or another pod of the same name is left alone.
func (h *Harness) updateStatus(ctx context.Context, p *PodProcess, change func(*corev1.PodStatus)) error {
	pods := h.cfg.Client.CoreV1().Pods(h.cfg.Namespace)
	return retry.RetryOnConflict(retry.DefaultRetry, func() error {
		pod, err := pods.Get(ctx, p.Pod, metav1.GetOptions{})
		if apierrors.IsNotFound(err) {
			return nil
		}
		if err != nil {
			return err
		}
		if pod.UID != p.UID || pod.DeletionTimestamp != nil {
			return nil
		}
		change(&pod.Status)
		_, err = pods.UpdateStatus(ctx, pod, metav1.UpdateOptions{})
		return err
	})
}

// notReady sets Ready and ContainersReady False and every container not ready.
func notReady(s *corev1.PodStatus) {
	for _, typ := range []corev1.PodConditionType{corev1.PodReady, corev1.ContainersReady} {
		setCondition(s, corev1.PodCondition{Type: typ, Status: corev1.ConditionFalse, Reason: "ProcessNotReady"})
	}
	for i := range s.ContainerStatuses {
		s.ContainerStatuses[i].Ready = false
	}
}

// startedAt is when the container in state s started, if it runs.
func startedAt(s corev1.ContainerState) metav1.Time {
	if s.Running != nil {
		return s.Running.StartedAt
	}
	return metav1.Time{}
}
