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

package kit

import (
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

type exampleStatus struct {
	Active     []string     `json:"active,omitempty"`
	LastRun    *metav1.Time `json:"lastRun,omitempty"`
	Conditions []string     `json:"conditions,omitempty"`
}

func TestStatusMergePatch(t *testing.T) {
	run := metav1.Date(2026, 12, 2, 11, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		name     string
		was, now exampleStatus
		want     string
	}{
		{name: "unchanged", was: exampleStatus{Active: []string{"a"}}, now: exampleStatus{Active: []string{"a"}}},
		{name: "set", now: exampleStatus{Active: []string{"a"}, LastRun: &run},
			want: `{"status":{"active":["a"],"lastRun":"2026-12-02T11:00:00Z"}}`},
		{name: "a cleared list is null", was: exampleStatus{Active: []string{"a"}, Conditions: []string{"c"}},
			now: exampleStatus{Conditions: []string{"c"}}, want: `{"status":{"active":null}}`},
		{name: "only what changed", was: exampleStatus{Active: []string{"a"}, Conditions: []string{"c"}},
			now: exampleStatus{Active: []string{"a", "b"}, Conditions: []string{"c"}}, want: `{"status":{"active":["a","b"]}}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := StatusMergePatch(tc.was, tc.now)
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != tc.want {
				t.Errorf("patch = %s, want %s", got, tc.want)
			}
		})
	}
}
