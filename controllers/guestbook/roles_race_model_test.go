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
	"fmt"
	"slices"
	"strconv"
	"testing"

	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	webappv1 "github.com/siteops/siteops/apis/webapp/v1"
)

// This file model-checks the promotion protocol of planRoles + writeRole: two controllers, each taking a
// consistent snapshot of the pods, planning from it and writing pod by pod with resourceVersion
// preconditions, interleaved in every possible order with outside changes of readiness. The invariant is
// the issue's: never two active pods.

// modelStore is an apiserver holding pods with resourceVersions.
type modelStore struct {
	pods map[string]corev1.Pod
	rv   int
}

func (s *modelStore) clone() *modelStore {
	c := &modelStore{pods: map[string]corev1.Pod{}, rv: s.rv}
	for k, v := range s.pods {
		c.pods[k] = *v.DeepCopy()
	}
	return c
}

// snapshot lists the pods, sorted by name, as an informer cache would hold them at one resourceVersion.
func (s *modelStore) snapshot() []corev1.Pod {
	out := make([]corev1.Pod, 0, len(s.pods))
	for _, p := range s.pods {
		out = append(out, *p.DeepCopy())
	}
	slices.SortFunc(out, func(a, b corev1.Pod) int { return olderFirst(&a, &b) })
	return out
}

// cas writes pod if its resourceVersion is current; a write that changes nothing does not bump it.
func (s *modelStore) cas(pod *corev1.Pod) bool {
	cur, ok := s.pods[pod.Name]
	if !ok || cur.ResourceVersion != pod.ResourceVersion {
		return false
	}
	if equality.Semantic.DeepEqual(cur, *pod) {
		return true
	}
	s.rv++
	pod = pod.DeepCopy()
	pod.ResourceVersion = strconv.Itoa(s.rv)
	s.pods[pod.Name] = *pod
	return true
}

// setReady is an outside change: the kubelet reports a pod's readiness.
func (s *modelStore) setReady(name string, ready bool) {
	p := s.pods[name]
	st := corev1.ConditionFalse
	if ready {
		st = corev1.ConditionTrue
	}
	p.Status.Conditions = []corev1.PodCondition{{Type: corev1.PodReady, Status: st}}
	s.rv++
	p.ResourceVersion = strconv.Itoa(s.rv)
	s.pods[name] = p
}

func (s *modelStore) actives() []string {
	var out []string
	for _, p := range s.pods {
		if p.Labels[webappv1.LabelRole] == webappv1.RoleActive {
			out = append(out, p.Name)
		}
	}
	slices.Sort(out)
	return out
}

// planner plans role writes from a snapshot.
type planner func(pods []corev1.Pod) rolePlan

// modelWriter is one controller reconcile: it snapshots, plans, then writes one pod per step; a failed write
// ends it (a retry is just another reconcile, so a third writer would model it).
type modelWriter struct {
	epoch   string
	snapped bool
	plan    rolePlan
	next    int
	done    bool
}

// outside is a readiness change made by the kubelet.
type outside struct {
	pod   string
	ready bool
}

// explorer enumerates every interleaving and remembers the first that breaks the invariant.
type explorer struct {
	plan      planner
	states    int
	violation string
}

func (e *explorer) run(s *modelStore, ws []modelWriter, events []outside, trace []string) {
	if e.violation != "" {
		return
	}
	e.states++
	if a := s.actives(); len(a) > 1 {
		e.violation = fmt.Sprintf("two active pods %v after %v", a, trace)
		return
	}
	if len(events) > 0 {
		s2 := s.clone()
		s2.setReady(events[0].pod, events[0].ready)
		e.run(s2, ws, events[1:], append(slices.Clone(trace), fmt.Sprintf("%s ready=%v", events[0].pod, events[0].ready)))
	}
	for i := range ws {
		w := ws[i]
		if w.done {
			continue
		}
		s2 := s.clone()
		ws2 := slices.Clone(ws)
		var step string
		switch {
		case !w.snapped:
			w.plan, w.snapped, w.next = e.plan(s2.snapshot()), true, 0
			step = fmt.Sprintf("%s plans %q", w.epoch, w.plan.active)
		case w.next < len(w.plan.writes):
			wr := w.plan.writes[w.next]
			ok := s2.cas(rolePatched(wr, w.epoch))
			step = fmt.Sprintf("%s writes %s=%s ok=%v", w.epoch, wr.pod.Name, wr.role, ok)
			w.next++
			if !ok {
				w.done = true
			}
		default:
			w.done = true
			step = w.epoch + " done"
		}
		if w.snapped && w.next >= len(w.plan.writes) && !w.done {
			w.done = true
		}
		ws2[i] = w
		e.run(s2, ws2, events, append(slices.Clone(trace), step))
	}
}

// modelPods are x (active, NotReady: the failover), y and z (Ready standbys) and w (NotReady), y the oldest.
func modelPods() *modelStore {
	s := &modelStore{pods: map[string]corev1.Pod{}}
	for i, name := range []string{"x", "y", "z", "w"} {
		p := testPod(name, i)
		p.Labels[webappv1.LabelRole] = webappv1.RoleStandby
		p.ResourceVersion = strconv.Itoa(i + 1)
		s.pods[name] = p
	}
	s.rv = 4
	x := s.pods["x"]
	x.Labels[webappv1.LabelRole] = webappv1.RoleActive
	x.Status.Conditions = []corev1.PodCondition{{Type: corev1.PodReady, Status: corev1.ConditionFalse,
		LastTransitionTime: metav1.NewTime(t0)}}
	s.pods["x"] = x
	w := s.pods["w"]
	w.Status.Conditions = x.Status.Conditions
	s.pods["w"] = w
	return s
}

// modelScenarios are the outside changes racing with the two controllers: they make the controllers'
// snapshots disagree on which pod is the best candidate.
var modelScenarios = map[string][]outside{
	"y flaps":              {{"y", false}, {"y", true}},
	"y fails, w recovers":  {{"y", false}, {"w", true}},
	"x recovers, y fails":  {{"x", true}, {"y", false}},
	"z fails then y fails": {{"z", false}, {"y", false}, {"z", true}},
	"no outside change":    nil,
	"w recovers, x flaps":  {{"w", true}, {"x", true}, {"x", false}},
	"y and z flap":         {{"y", false}, {"z", false}, {"y", true}},
}

func TestPromotionProtocolNeverTwoActivePods(t *testing.T) {
	for name, events := range modelScenarios {
		t.Run(name, func(t *testing.T) {
			g := NewWithT(t)
			e := &explorer{plan: func(pods []corev1.Pod) rolePlan { return planRoles(pods, "") }}
			e.run(modelPods(), []modelWriter{{epoch: "A"}, {epoch: "B"}}, events, nil)
			g.Expect(e.violation).To(BeEmpty())
			g.Expect(e.states).To(BeNumerically(">", 200), "the model explored too little to mean anything")
		})
	}
}

// TestPromotionModelCatchesANaiveProtocol shows the model check can fail: a protocol that only writes the
// pods whose role changes (no epoch rewrite of the other pods) lets two controllers promote two pods.
func TestPromotionModelCatchesANaiveProtocol(t *testing.T) {
	g := NewWithT(t)
	naive := func(pods []corev1.Pod) rolePlan {
		plan := planRoles(pods, "")
		var writes []roleWrite
		for _, w := range plan.writes {
			if w.pod.Labels[webappv1.LabelRole] != w.role {
				writes = append(writes, roleWrite{pod: w.pod, role: w.role})
			}
		}
		plan.writes = writes
		return plan
	}
	e := &explorer{plan: naive}
	e.run(modelPods(), []modelWriter{{epoch: "A"}, {epoch: "B"}}, modelScenarios["y flaps"], nil)
	g.Expect(e.violation).To(ContainSubstring("two active pods"))
	t.Log(e.violation)
}
