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

package guestbook

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"testing"

	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/watch"
	"sigs.k8s.io/controller-runtime/pkg/client"

	webappv1 "github.com/siteops/siteops/apis/webapp/v1"
)

// roleRecorder follows a watch on the namespace's pods and checks every state it passes through: the
// events of one watch come in resourceVersion order, so after each event its map is a state the namespace
// really was in.
type roleRecorder struct {
	mu         sync.Mutex
	roles      map[string]string
	violations []string
	changes    int // times the set of active pods changed to a different single pod
	lastActive string
	ended      chan struct{}
	endedEarly bool
}

func (r *roleRecorder) follow(w watch.Interface, stop <-chan struct{}) {
	defer close(r.ended)
	for {
		select {
		case <-stop:
			return
		case ev, ok := <-w.ResultChan():
			if !ok {
				r.mu.Lock()
				r.endedEarly = true
				r.mu.Unlock()
				return
			}
			pod, isPod := ev.Object.(*corev1.Pod)
			if !isPod {
				continue
			}
			r.mu.Lock()
			if ev.Type == watch.Deleted {
				delete(r.roles, pod.Name)
			} else {
				r.roles[pod.Name] = pod.Labels[webappv1.LabelRole]
			}
			var active []string
			for name, role := range r.roles {
				if role == webappv1.RoleActive {
					active = append(active, name)
				}
			}
			slices.Sort(active)
			if len(active) > 1 {
				r.violations = append(r.violations, fmt.Sprintf("rv %s: active %v", pod.ResourceVersion, active))
			}
			if len(active) == 1 && active[0] != r.lastActive {
				r.changes++
				r.lastActive = active[0]
			}
			r.mu.Unlock()
		}
	}
}

// TestGuestbookRacingManagersNeverTwoActivePods runs three managers (the package's and two more) on the
// same Guestbook while the active pod fails over and over, and checks every state the pods pass through.
func TestGuestbookRacingManagersNeverTwoActivePods(t *testing.T) {
	g := NewWithT(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	for range 2 {
		g.Expect(startManager(ctx)).To(Succeed())
	}

	ns := newNamespace(t)
	wc, err := client.NewWithWatch(env.Config, client.Options{Scheme: env.Scheme})
	g.Expect(err).NotTo(HaveOccurred())
	w, err := wc.Watch(ctx, &corev1.PodList{}, client.InNamespace(ns))
	g.Expect(err).NotTo(HaveOccurred())
	defer w.Stop()
	rec := &roleRecorder{roles: map[string]string{}, ended: make(chan struct{})}
	stop := make(chan struct{})
	go rec.follow(w, stop)

	createConfigMap(t, ns, "cfg", map[string]string{"k": "v"})
	gb := createGuestbook(t, ns, "race", 5, "cfg")
	pods := createPods(t, gb, 5)

	const rounds = 25
	for i := range rounds {
		var active string
		g.Eventually(func(g Gomega) {
			a := activePodNames(g, ns)
			g.Expect(a).To(HaveLen(1))
			active = a[0]
		}, eventually).Should(Succeed(), "round %d", i)
		// Fail the active pod and, at once, flap another so the managers' caches disagree on candidates.
		other := pods[(slices.Index(pods, active)+1+i%3)%len(pods)]
		setReady(t, ns, active, false)
		setReady(t, ns, other, false)
		setReady(t, ns, other, true)
		g.Eventually(func(g Gomega) {
			a := activePodNames(g, ns)
			g.Expect(a).To(HaveLen(1))
			g.Expect(a[0]).NotTo(Equal(active))
		}, eventually).Should(Succeed(), "round %d", i)
		setReady(t, ns, active, true)
	}

	close(stop)
	<-rec.ended
	rec.mu.Lock()
	defer rec.mu.Unlock()
	g.Expect(rec.endedEarly).To(BeFalse(), "the watch ended before the test: states were missed")
	g.Expect(rec.violations).To(BeEmpty())
	g.Expect(rec.changes).To(BeNumerically(">=", rounds), "the race exercised too few failovers")
	t.Logf("%d active changes observed over %d pods, final roles %v", rec.changes, len(pods), rec.roles)
}
