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

package sitesync

import (
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// TestFieldManagerOfAnAnnotation: who set an annotation is the manager of the newest managedFields entry that
// owns it; entries of the status subresource, entries owning other annotations and unreadable entries do not
// count.
func TestFieldManagerOfAnAnnotation(t *testing.T) {
	const key = "siteops.dev/approve-two"
	owns := func(annotations ...string) *metav1.FieldsV1 {
		raw := `{"f:metadata":{"f:annotations":{`
		for i, a := range annotations {
			if i > 0 {
				raw += ","
			}
			raw += `"f:` + a + `":{}`
		}
		return metav1.NewFieldsV1(raw + `}},"f:spec":{}}`)
	}
	at := func(minutes int) *metav1.Time {
		v := metav1.NewTime(time.Date(2026, 3, 2, 10, minutes, 0, 0, time.UTC))
		return &v
	}
	cases := []struct {
		name    string
		entries []metav1.ManagedFieldsEntry
		want    string
	}{
		{"no entries", nil, ""},
		{"the owner", []metav1.ManagedFieldsEntry{
			{Manager: "kubectl-create", Time: at(0), FieldsV1: owns("team")},
			{Manager: "kubectl-annotate", Time: at(1), FieldsV1: owns(key)},
		}, "kubectl-annotate"},
		{"the newest of two owners", []metav1.ManagedFieldsEntry{
			{Manager: "ci", Operation: metav1.ManagedFieldsOperationApply, Time: at(5), FieldsV1: owns(key)},
			{Manager: "release-bot", Operation: metav1.ManagedFieldsOperationApply, Time: at(9), FieldsV1: owns(key)},
			{Manager: "alice", Operation: metav1.ManagedFieldsOperationApply, Time: at(7), FieldsV1: owns(key)},
		}, "release-bot"},
		{"another annotation of the same prefix", []metav1.ManagedFieldsEntry{
			{Manager: "kubectl-annotate", Time: at(1), FieldsV1: owns(key + "x")},
		}, ""},
		{"the status subresource and unreadable entries", []metav1.ManagedFieldsEntry{
			{Manager: "manager", Subresource: "status", Time: at(3), FieldsV1: owns(key)},
			{Manager: "broken", Time: at(4), FieldsV1: metav1.NewFieldsV1("{")},
			{Manager: "nil"},
		}, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := fieldManagerOf(tc.entries, key); got != tc.want {
				t.Errorf("fieldManagerOf = %q, want %q", got, tc.want)
			}
		})
	}
}
