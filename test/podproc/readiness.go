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
	"errors"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
)

// everything selects every pod the harness watches.
var everything = labels.Everything()

// errNotRunning: kwok has not yet moved the pod to Running (hack/kwok/pod-process-backed.yaml); a Ready
// condition written before would be overwritten by kwok's stage.
var errNotRunning = errors.New("pod not Running yet")

// syncReady writes p's /readyz into its pod's Ready and ContainersReady conditions, as a kubelet's readiness
// probe would, until the process exits, is told to stop, or ctx ends.
func (h *Harness) syncReady(ctx context.Context, p *PodProcess) {
	tick := time.NewTicker(readyPoll)
	defer tick.Stop()
	written, known := false, false
	for {
		select {
		case <-ctx.Done():
			return
		case <-p.Exited():
			if !p.Terminated() {
				h.crashed(ctx, p)
			}
			return
		case <-tick.C:
		}
		if p.Terminated() {
			return
		}
		ready := p.Ready()
		if known && ready == written {
			continue
		}
		if err := h.setReady(ctx, p, ready); err != nil {
			if !errors.Is(err, errNotRunning) {
				h.cfg.Logf("podproc: pod %s: writing Ready=%t: %v", p.Pod, ready, err)
			}
			continue
		}
		h.cfg.Logf("podproc: pod %s: Ready=%t from its manager's /readyz", p.Pod, ready)
		written, known = ready, true
	}
}

// setReady writes Ready and ContainersReady (and the containers' ready flags) of p's pod.
func (h *Harness) setReady(ctx context.Context, p *PodProcess, ready bool) error {
	pods := h.cfg.Client.CoreV1().Pods(h.cfg.Namespace)
	pod, err := pods.Get(ctx, p.Pod, metav1.GetOptions{})
	if err != nil {
		return err
	}
	if pod.UID != p.UID || pod.DeletionTimestamp != nil {
		return nil
	}
	if pod.Status.Phase != corev1.PodRunning {
		return errNotRunning
	}
	status, reason := corev1.ConditionFalse, "ProcessNotReady"
	if ready {
		status, reason = corev1.ConditionTrue, ""
	}
	for _, typ := range []corev1.PodConditionType{corev1.PodReady, corev1.ContainersReady} {
		setCondition(&pod.Status, corev1.PodCondition{Type: typ, Status: status, Reason: reason})
	}
	for i := range pod.Status.ContainerStatuses {
		pod.Status.ContainerStatuses[i].Ready = ready
	}
	_, err = pods.UpdateStatus(ctx, pod, metav1.UpdateOptions{})
	return err
}

// setCondition sets c in s, keeping the transition time when the status does not change.
func setCondition(s *corev1.PodStatus, c corev1.PodCondition) {
	c.LastTransitionTime = metav1.Now()
	for i := range s.Conditions {
		if s.Conditions[i].Type != c.Type {
			continue
		}
		if s.Conditions[i].Status == c.Status {
			c.LastTransitionTime = s.Conditions[i].LastTransitionTime
		}
		s.Conditions[i] = c
		return
	}
	s.Conditions = append(s.Conditions, c)
}

// podReady reports the pod's Ready condition.
func podReady(p *corev1.Pod) bool {
	for _, c := range p.Status.Conditions {
		if c.Type == corev1.PodReady {
			return c.Status == corev1.ConditionTrue
		}
	}
	return false
}

// readyPoll is how often the harness reads each process' /readyz.
const readyPoll = 250 * time.Millisecond
