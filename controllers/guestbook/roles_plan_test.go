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
	"testing"
	"time"

	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	webappv1 "github.com/siteops/siteops/apis/webapp/v1"
)

var t0 = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)

// podOpt changes a test pod.
type podOpt func(*corev1.Pod)

func withRole(role string) podOpt { return func(p *corev1.Pod) { p.Labels[webappv1.LabelRole] = role } }
func notReadySince(t time.Time) podOpt {
	return func(p *corev1.Pod) {
		p.Status.Conditions = []corev1.PodCondition{{Type: corev1.PodReady, Status: corev1.ConditionFalse,
			LastTransitionTime: metav1.NewTime(t)}}
	}
}
func deletedAt(t time.Time, grace int64) podOpt {
	return func(p *corev1.Pod) {
		p.DeletionTimestamp = ptr.To(metav1.NewTime(t))
		p.DeletionGracePeriodSeconds = ptr.To(grace)
	}
}
func phase(ph corev1.PodPhase) podOpt { return func(p *corev1.Pod) { p.Status.Phase = ph } }

// testPod is a Ready pod created age seconds after t0.
func testPod(name string, age int, opts ...podOpt) corev1.Pod {
	p := corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{webappv1.LabelGuestbook: "gb"},
			CreationTimestamp: metav1.NewTime(t0.Add(time.Duration(age) * time.Second))},
		Status: corev1.PodStatus{Phase: corev1.PodRunning,
			Conditions: []corev1.PodCondition{{Type: corev1.PodReady, Status: corev1.ConditionTrue}}},
	}
	for _, o := range opts {
		o(&p)
	}
	return p
}

// writeDesc renders a plan's writes as "name=role" or "name=role!" for a touching write, in order.
func writeDesc(plan rolePlan) []string {
	out := []string{}
	for _, w := range plan.writes {
		s := w.pod.Name + "=" + w.role
		if w.touch {
			s += "!"
		}
		out = append(out, s)
	}
	return out
}

func TestPlanRoles(t *testing.T) {
	cases := []struct {
		name         string
		pods         []corev1.Pod
		lastActive   string
		active       string
		promoted     bool
		previous     string
		previousDown time.Time
		writes       []string
	}{
		{name: "no pods", writes: []string{}},
		{
			name:   "first Ready pod is promoted, the others labelled standby first",
			pods:   []corev1.Pod{testPod("b", 1), testPod("a", 2), testPod("c", 0, notReadySince(t0))},
			active: "b", promoted: true,
			writes: []string{"a=standby!", "c=standby!", "b=active!"},
		},
		{
			name:   "Ready active pod is kept, new pods labelled standby without touching",
			pods:   []corev1.Pod{testPod("a", 0, withRole("standby")), testPod("b", 1, withRole("active")), testPod("c", 2)},
			active: "b",
			writes: []string{"c=standby"},
		},
		{
			name: "active pod NotReady: the oldest Ready standby is promoted",
			pods: []corev1.Pod{testPod("a", 0, withRole("active"), notReadySince(t0.Add(time.Minute))),
				testPod("c", 1, withRole("standby")), testPod("b", 2, withRole("standby"))},
			active: "c", promoted: true, previous: "a", previousDown: t0.Add(time.Minute),
			writes: []string{"a=standby!", "b=standby!", "c=active!"},
		},
		{
			name: "same creation time: the name breaks the tie",
			pods: []corev1.Pod{testPod("x", 0, withRole("active"), notReadySince(t0)),
				testPod("q", 5, withRole("standby")), testPod("p", 5, withRole("standby"))},
			active: "p", promoted: true, previous: "x", previousDown: t0,
			writes: []string{"x=standby!", "q=standby!", "p=active!"},
		},
		{
			name: "active pod being deleted: down since the deletion started",
			pods: []corev1.Pod{testPod("a", 0, withRole("active"), deletedAt(t0.Add(time.Minute), 30)),
				testPod("b", 1, withRole("standby"))},
			active: "b", promoted: true, previous: "a", previousDown: t0.Add(30 * time.Second),
			writes: []string{"a=standby!", "b=active!"},
		},
		{
			name:       "active pod already gone: a failover of unknown duration",
			pods:       []corev1.Pod{testPod("b", 1, withRole("standby")), testPod("c", 2, withRole("standby"))},
			lastActive: "a",
			active:     "b", promoted: true, previous: "a",
			writes: []string{"c=standby!", "b=active!"},
		},
		{
			name: "status names a pod that is still there as standby: no failover",
			pods: []corev1.Pod{testPod("a", 0, withRole("standby"), notReadySince(t0)),
				testPod("b", 1, withRole("standby"))},
			lastActive: "a",
			active:     "b", promoted: true,
			writes: []string{"a=standby!", "b=active!"},
		},
		{
			name:     "no Ready pod: the active label is removed and nothing promoted",
			pods:     []corev1.Pod{testPod("a", 0, withRole("active"), notReadySince(t0)), testPod("b", 1, notReadySince(t0))},
			previous: "a", previousDown: t0,
			writes: []string{"a=standby", "b=standby"},
		},
		{
			name:   "two Ready active pods: the older is kept, the other demoted",
			pods:   []corev1.Pod{testPod("b", 1, withRole("active")), testPod("a", 0, withRole("active"))},
			active: "a",
			writes: []string{"b=standby"},
		},
		{
			name: "a finished pod is never promoted even if its Ready condition lingers",
			pods: []corev1.Pod{testPod("a", 0, phase(corev1.PodSucceeded)), testPod("b", 1, phase(corev1.PodFailed)),
				testPod("c", 2)},
			active: "c", promoted: true,
			writes: []string{"a=standby!", "b=standby!", "c=active!"},
		},
		{
			name:   "a pod without a Ready condition is not Ready",
			pods:   []corev1.Pod{{ObjectMeta: metav1.ObjectMeta{Name: "a", Labels: map[string]string{}}}, testPod("b", 1)},
			active: "b", promoted: true,
			writes: []string{"a=standby!", "b=active!"},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			g := NewWithT(t)
			plan := planRoles(tc.pods, tc.lastActive)
			g.Expect(plan.active).To(Equal(tc.active))
			g.Expect(plan.promoted).To(Equal(tc.promoted))
			g.Expect(plan.previous).To(Equal(tc.previous))
			g.Expect(plan.previousDown).To(BeTemporally("==", tc.previousDown))
			g.Expect(writeDesc(plan)).To(Equal(tc.writes))
		})
	}
}
