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

package leadership

import (
	"context"
	"slices"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/cache"
)

// watchColours starts a watch of the pods in the elector's namespace that carry a PodTemplateHashLabel (the
// pods of Argo Rollouts), so that a leader the active Service no longer selects can hand the Lease straight to
// a Ready pod of the colour it selects now.
func (e *Elector) watchColours(ctx context.Context) {
	lw := cache.NewFilteredListWatchFromClient(e.cfg.Client.CoreV1().RESTClient(), "pods", e.cfg.Namespace,
		func(o *metav1.ListOptions) { o.LabelSelector = PodTemplateHashLabel })
	e.podInformer = cache.NewSharedIndexInformer(lw, &corev1.Pod{}, 0, cache.Indexers{})
	go e.podInformer.RunWithContext(ctx)
}

// successor is the pod the Lease is handed to when this manager gives it up: a Ready pod, other than this
// manager's own, of the colour the active Service selects (the first by name when there are several); "" when
// there is none, or no active Service, and the Lease is then released to nobody.
func (e *Elector) successor() string {
	if e.serviceInformer == nil {
		return ""
	}
	svc, _ := e.watched(e.serviceInformer, e.cfg.ActiveService).(*corev1.Service)
	if svc == nil {
		return ""
	}
	return e.readyPodOf(svc.Spec.Selector[PodTemplateHashLabel])
}

// readyPodOf is a Ready pod of the colour of pod-template hash, other than this manager's own (the first by
// name when there are several); "" when there is none.
func (e *Elector) readyPodOf(hash string) string {
	if e.podInformer == nil || hash == "" {
		return ""
	}
	var names []string
	for _, obj := range e.podInformer.GetStore().List() {
		pod, ok := obj.(*corev1.Pod)
		if ok && pod.Labels[PodTemplateHashLabel] == hash && pod.Name != e.cfg.PodName &&
			pod.DeletionTimestamp == nil && ready(pod) {
			names = append(names, pod.Name)
		}
	}
	if len(names) == 0 {
		return ""
	}
	return slices.Min(names)
}

// ready reports whether pod's Ready condition is true.
func ready(pod *corev1.Pod) bool {
	for _, c := range pod.Status.Conditions {
		if c.Type == corev1.PodReady {
			return c.Status == corev1.ConditionTrue
		}
	}
	return false
}

// release gives up the Lease if it is still this manager's: it hands it to the successor, a Ready pod of the
// active colour, or else to nobody.
func (e *Elector) release(ctx context.Context) {
	e.handTo(ctx, e.successor())
}

// handTo gives up the Lease if it is still this manager's, to pod to, or to nobody when to is "".
func (e *Elector) handTo(ctx context.Context, to string) {
	now := e.cfg.Clock.Now()
	lease, err := e.releaseLease(ctx, e.lease, now, to)
	if err != nil {
		e.cfg.Log.Info("lease not released; it expires instead", "error", err.Error())
		return
	}
	e.see(lease, now)
	e.cfg.Log.V(1).Info("lease released", "to", describe(to))
}
