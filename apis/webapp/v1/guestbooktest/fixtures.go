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

// Package guestbooktest holds the Guestbook part of the admission matrix, shared by the controller tests and
// the reliability test that counts the whole matrix: Guestbooks as a user would write them (unstructured, so
// a test can send what the Go types cannot hold) and the field path each must be rejected with.
package guestbooktest

import (
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	webappv1 "github.com/siteops/siteops/apis/webapp/v1"
)

// Raw returns a Guestbook with the given spec (none when spec is nil).
func Raw(ns, name string, spec map[string]any) *unstructured.Unstructured {
	u := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": webappv1.GroupVersion.String(),
		"kind":       "Guestbook",
		"metadata":   map[string]any{"name": name, "namespace": ns},
	}}
	if spec != nil {
		u.Object["spec"] = spec
	}
	return u
}

// ValidSpec is the seed sample's spec with changes applied (a nil value removes the field).
func ValidSpec(changes map[string]any) map[string]any {
	spec := map[string]any{"size": int64(1), "configMapName": "myconfig", "alias": "Address"}
	for k, v := range changes {
		if v == nil {
			delete(spec, k)
		} else {
			spec[k] = v
		}
	}
	return spec
}

// Invalid is one row of the admission matrix.
type Invalid struct {
	// Name describes what is wrong.
	Name string
	// Object is the invalid Guestbook.
	Object *unstructured.Unstructured
	// Field is the field path the rejection must name.
	Field string
}

// InvalidGuestbooks returns the Guestbook rows in namespace ns. Guestbook has no webhook: the CRD's schema
// and CEL rules reject every row on their own.
func InvalidGuestbooks(ns string) []Invalid {
	with := func(changes map[string]any) *unstructured.Unstructured { return Raw(ns, "a", ValidSpec(changes)) }
	return []Invalid{
		{"size 0", with(map[string]any{"size": int64(0)}), "spec.size"},
		{"size 11", with(map[string]any{"size": int64(11)}), "spec.size"},
		{"size negative", with(map[string]any{"size": int64(-1)}), "spec.size"},
		{"size missing", with(map[string]any{"size": nil}), "spec.size"},
		{"size not a number", with(map[string]any{"size": "three"}), "spec.size"},
		{"configMapName of 16 chars", with(map[string]any{"configMapName": strings.Repeat("c", 16)}), "spec.configMapName"},
		{"configMapName empty", with(map[string]any{"configMapName": ""}), "spec.configMapName"},
		{"configMapName missing", with(map[string]any{"configMapName": nil}), "spec.configMapName"},
		{"configMapName not a DNS label", with(map[string]any{"configMapName": "My_Config"}), "spec.configMapName"},
		{"alias Email", with(map[string]any{"alias": "Email"}), "spec.alias"},
		{"alias in the wrong case", with(map[string]any{"alias": "phone"}), "spec.alias"},
		{"alias empty", with(map[string]any{"alias": ""}), "spec.alias"},
		{"image empty", with(map[string]any{"image": ""}), "spec.image"},
		{"image with a space", with(map[string]any{"image": "nginx latest"}), "spec.image"},
		{"image of 256 chars", with(map[string]any{"image": strings.Repeat("i", 256)}), "spec.image"},
		{"port 0", with(map[string]any{"port": int64(0)}), "spec.port"},
		{"port 65536", with(map[string]any{"port": int64(65536)}), "spec.port"},
		{"spec missing", Raw(ns, "a", nil), "spec"},
		{"name of 56 chars", Raw(ns, strings.Repeat("n", 56), ValidSpec(nil)), "metadata.name"},
		{"name starting with a digit", Raw(ns, "1shop", ValidSpec(nil)), "metadata.name"},
	}
}
