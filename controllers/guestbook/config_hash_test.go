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

	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func TestConfigHash(t *testing.T) {
	cm := func(data map[string]string, bin map[string][]byte) *corev1.ConfigMap {
		return &corev1.ConfigMap{Data: data, BinaryData: bin}
	}
	base := configHash(cm(map[string]string{"a": "1", "b": "2"}, nil))
	cases := []struct {
		name string
		cm   *corev1.ConfigMap
		same bool
	}{
		{"same data", cm(map[string]string{"b": "2", "a": "1"}, nil), true},
		{"metadata does not count", &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "x",
			Labels: map[string]string{"l": "v"}},
			Data: map[string]string{"a": "1", "b": "2"}}, true},
		{"a value changed", cm(map[string]string{"a": "1", "b": "3"}, nil), false},
		{"a key renamed", cm(map[string]string{"a": "1", "c": "2"}, nil), false},
		{"a key added", cm(map[string]string{"a": "1", "b": "2", "c": ""}, nil), false},
		{"key and value boundary moved", cm(map[string]string{"a": "1", "b2": ""}, nil), false},
		{"the same bytes as binaryData", cm(map[string]string{"a": "1"}, map[string][]byte{"b": []byte("2")}), false},
		{"empty", cm(nil, nil), false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			g := NewWithT(t)
			h := configHash(tc.cm)
			g.Expect(h).To(HaveLen(16))
			if tc.same {
				g.Expect(h).To(Equal(base))
			} else {
				g.Expect(h).NotTo(Equal(base))
			}
		})
	}
}
