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
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/intstr"
)

func TestPickBackendFollowsTheServiceSelector(t *testing.T) {
	pod := func(name, hash string) *corev1.Pod {
		return &corev1.Pod{
			ObjectMeta: metav1.ObjectMeta{Name: name, UID: types.UID(name),
				Labels: map[string]string{"app": "m", "rollouts-pod-template-hash": hash}},
			Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "manager",
				Ports: []corev1.ContainerPort{{Name: "webhook", ContainerPort: 9443}, {Name: "standby", ContainerPort: 8082}}}}},
		}
	}
	blue, green := pod("m-blue", "aaa"), pod("m-green", "bbb")
	procs := map[types.UID]*PodProcess{
		"m-blue":  {Pod: "m-blue", Ports: map[string]int{"webhook": 1001, "standby": 1002}},
		"m-green": {Pod: "m-green", Ports: map[string]int{"webhook": 2001, "standby": 2002}},
	}
	running := func(uid types.UID) *PodProcess { return procs[uid] }
	svc := func(hash string, target intstr.IntOrString) *corev1.Service {
		sel := map[string]string{"app": "m"}
		if hash != "" {
			sel["rollouts-pod-template-hash"] = hash
		}
		return &corev1.Service{ObjectMeta: metav1.ObjectMeta{Name: "s"},
			Spec: corev1.ServiceSpec{Selector: sel, Ports: []corev1.ServicePort{{Port: 443, TargetPort: target}}}}
	}
	byName, byNumber := intstr.FromString("webhook"), intstr.FromInt32(8082)
	for _, tc := range []struct {
		name     string
		svc      *corev1.Service
		ready    []*corev1.Pod
		wantPod  string
		wantPort int
	}{
		{"active selector on blue", svc("aaa", byName), []*corev1.Pod{blue, green}, "m-blue", 1001},
		{"active selector on green after promote", svc("bbb", byName), []*corev1.Pod{blue, green}, "m-green", 2001},
		{"numeric targetPort maps to the container port name", svc("bbb", byNumber), []*corev1.Pod{blue, green}, "m-green",
			2002},
		{"selected pod not Ready: no backend", svc("bbb", byName), []*corev1.Pod{blue}, "", 0},
		{"no hash yet: first Ready pod by name", svc("", byName), []*corev1.Pod{blue, green}, "m-blue", 1001},
	} {
		t.Run(tc.name, func(t *testing.T) {
			proc, port, err := pickBackend(tc.svc, 443, tc.ready, running)
			if tc.wantPod == "" {
				if err == nil {
					t.Fatalf("got pod %s port %d, want no backend", proc.Pod, port)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if proc.Pod != tc.wantPod || port != tc.wantPort {
				t.Fatalf("got %s:%d, want %s:%d", proc.Pod, port, tc.wantPod, tc.wantPort)
			}
		})
	}
	if _, _, err := pickBackend(svc("aaa", byName), 80, []*corev1.Pod{blue}, running); err == nil {
		t.Fatal("a port the Service does not have picked a backend")
	}
}
