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
)

func TestBinaryForPicksTheBuildOfTheImageTag(t *testing.T) {
	cfg := Config{Binary: "bin/manager", Binaries: map[string]string{"v0.2.0": "next/manager"}}
	for _, tc := range []struct{ image, want string }{
		{"ghcr.io/siteops/manager:v0.2.0", "next/manager"},
		{"ghcr.io/siteops/manager:v0.1.0", "bin/manager"},
		{"localhost:5000/siteops/manager:v0.2.0", "next/manager"},
		{"localhost:5000/siteops/manager", "bin/manager"},
		{"ghcr.io/siteops/manager:v0.2.0@sha256:0123", "next/manager"},
		{"ghcr.io/siteops/manager@sha256:0123", "bin/manager"},
		{"", "bin/manager"},
	} {
		pod := &corev1.Pod{Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "manager", Image: tc.image}}}}
		if got := cfg.binaryFor(pod); got != tc.want {
			t.Errorf("image %q: binary %q, want %q", tc.image, got, tc.want)
		}
	}
	if got := cfg.binaryFor(&corev1.Pod{}); got != "bin/manager" {
		t.Errorf("a pod without containers: binary %q, want bin/manager", got)
	}
}
