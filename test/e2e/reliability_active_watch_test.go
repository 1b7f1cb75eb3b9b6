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

package e2e

import (
	"context"
	"fmt"
	"sync"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/cache"

	webappv1 "github.com/siteops/siteops/apis/webapp/v1"
)

// activeWatch follows every Guestbook pod of a namespace through an informer and, after each event, counts
// the live pods (no deletionTimestamp) labelled active per Guestbook. Events arrive in resourceVersion order,
// so every state the apiserver went through is looked at; an informer re-lists after an apiserver restart.
type activeWatch struct {
	client     kubernetes.Interface
	ns         string
	mu         sync.Mutex
	pods       map[string]*corev1.Pod
	violations []string
	events     int
	stop       chan struct{}
}

// watchActivePods starts an activeWatch on ns; it stops on test cleanup.
func watchActivePods(t *testing.T, k kube, ns string) *activeWatch {
	t.Helper()
	cs := k.clientset(t)
	w := &activeWatch{client: cs, ns: ns, pods: map[string]*corev1.Pod{}, stop: make(chan struct{})}
	f := informers.NewSharedInformerFactoryWithOptions(cs, 0, informers.WithNamespace(ns),
		informers.WithTweakListOptions(func(o *metav1.ListOptions) { o.LabelSelector = webappv1.LabelGuestbook }))
	inf := f.Core().V1().Pods().Informer()
	_, err := inf.AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    func(obj any) { w.observe(obj, false) },
		UpdateFunc: func(_, obj any) { w.observe(obj, false) },
		DeleteFunc: func(obj any) { w.observe(obj, true) },
	})
	if err != nil {
		t.Fatal(err)
	}
	f.Start(w.stop)
	t.Cleanup(func() { close(w.stop); f.Shutdown() })
	if !cache.WaitForCacheSync(w.stop, inf.HasSynced) {
		t.Fatal("pod informer did not sync")
	}
	return w
}

// observe applies one event and checks the invariant.
func (w *activeWatch) observe(obj any, deleted bool) {
	if d, ok := obj.(cache.DeletedFinalStateUnknown); ok {
		obj, deleted = d.Obj, true
	}
	pod, ok := obj.(*corev1.Pod)
	if !ok {
		return
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	w.events++
	if deleted {
		delete(w.pods, pod.Name)
	} else {
		w.pods[pod.Name] = pod
	}
	active := map[string][]string{}
	for _, p := range w.pods {
		if p.DeletionTimestamp == nil && p.Labels[webappv1.LabelRole] == webappv1.RoleActive {
			gb := p.Labels[webappv1.LabelGuestbook]
			active[gb] = append(active[gb], p.Name)
		}
	}
	for gb, names := range active {
		if len(names) > 1 {
			w.violations = append(w.violations, fmt.Sprintf("Guestbook %s had %d active pods %v at pod %s rv %s",
				gb, len(names), names, pod.Name, pod.ResourceVersion))
		}
	}
}

// deleteActive deletes the live active pod of Guestbook gb (a failover for the controller to handle), and
// reports whether there was one.
func (w *activeWatch) deleteActive(ctx context.Context, gb string) bool {
	w.mu.Lock()
	var name string
	for _, p := range w.pods {
		if p.DeletionTimestamp == nil && p.Labels[webappv1.LabelGuestbook] == gb &&
			p.Labels[webappv1.LabelRole] == webappv1.RoleActive {
			name = p.Name
		}
	}
	w.mu.Unlock()
	return name != "" && w.client.CoreV1().Pods(w.ns).Delete(ctx, name, metav1.DeleteOptions{}) == nil
}

// result returns the events seen and the violations found so far.
func (w *activeWatch) result() (events int, violations []string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.events, append([]string(nil), w.violations...)
}
