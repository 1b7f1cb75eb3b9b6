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

package validate

import (
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"path"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/managedfields"
	"k8s.io/kube-openapi/pkg/validation/spec"
	"sigs.k8s.io/structured-merge-diff/v6/typed"
)

// schemaFiles are the built-in types' OpenAPI schemas, one file per Kubernetes minor version, written by
// hack/openapi-schemas from kube-apiserver with every API group and version on.
//
//go:embed schemas/kubernetes-*.json
var schemaFiles embed.FS

// KubernetesVersions are the releases whose built-in schemas siteops carries, oldest first.
func KubernetesVersions() []string {
	entries, _ := schemaFiles.ReadDir("schemas")
	var out []string
	for _, e := range entries {
		out = append(out, strings.TrimSuffix(strings.TrimPrefix(e.Name(), "kubernetes-"), ".json"))
	}
	slices.SortFunc(out, compareMinor)
	return out
}

// DefaultKubernetesVersion is the newest release siteops carries the schemas of.
func DefaultKubernetesVersion() string {
	v := KubernetesVersions()
	return v[len(v)-1]
}

// ParseKubernetesVersion turns "1.37", "v1.37" or "v1.37.2" into the minor release "1.37".
func ParseKubernetesVersion(s string) (string, error) {
	v := strings.TrimPrefix(strings.TrimSpace(s), "v")
	parts := strings.Split(v, ".")
	if len(parts) < 2 || len(parts) > 3 || slices.Contains(parts, "") {
		return "", fmt.Errorf("kubernetes version %q: want MAJOR.MINOR[.PATCH], e.g. 1.37", s)
	}
	for _, p := range parts {
		if strings.Trim(p, "0123456789") != "" {
			return "", fmt.Errorf("kubernetes version %q: want MAJOR.MINOR[.PATCH], e.g. 1.37", s)
		}
	}
	return parts[0] + "." + parts[1], nil
}

func compareMinor(a, b string) int {
	var am, an, bm, bn int
	_, _ = fmt.Sscanf(a, "%d.%d", &am, &an)
	_, _ = fmt.Sscanf(b, "%d.%d", &bm, &bn)
	if am != bm {
		return am - bm
	}
	return an - bn
}

// builtinTypes are the built-in kinds of one Kubernetes version.
type builtinTypes struct {
	version   string
	converter managedfields.TypeConverter
	served    map[schema.GroupVersionKind]bool
	groups    map[string]bool                  // API groups the release serves
	versions  map[string][]schema.GroupVersion // kind -> the group versions serving it
}

// builtinTypes returns the parsed schemas of version ("" = the default), parsing them on first use.
func (s *Schemas) builtinTypes(version string) (*builtinTypes, error) {
	if version == "" {
		version = DefaultKubernetesVersion()
	}
	minor, err := ParseKubernetesVersion(version)
	if err != nil {
		return nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if bt, ok := s.builtins[minor]; ok {
		return bt, nil
	}
	b, err := schemaFiles.ReadFile(path.Join("schemas", "kubernetes-"+minor+".json"))
	if err != nil {
		return nil, fmt.Errorf("no schemas of Kubernetes %s in this siteops (it has %s)", minor,
			strings.Join(KubernetesVersions(), ", "))
	}
	bt, err := parseBuiltinTypes(minor, b)
	if err != nil {
		return nil, err
	}
	s.builtins[minor] = bt
	return bt, nil
}

func parseBuiltinTypes(version string, b []byte) (*builtinTypes, error) {
	var defs map[string]*spec.Schema
	if err := json.Unmarshal(b, &defs); err != nil {
		return nil, fmt.Errorf("reading the schemas of Kubernetes %s: %w", version, err)
	}
	tc, err := managedfields.NewTypeConverter(defs, false)
	if err != nil {
		return nil, fmt.Errorf("reading the schemas of Kubernetes %s: %w", version, err)
	}
	bt := &builtinTypes{version: version, converter: tc, served: map[schema.GroupVersionKind]bool{},
		groups: map[string]bool{}, versions: map[string][]schema.GroupVersion{}}
	for _, d := range defs {
		var gvks []schema.GroupVersionKind
		if raw, ok := d.Extensions["x-kubernetes-group-version-kind"]; ok {
			j, _ := json.Marshal(raw)
			_ = json.Unmarshal(j, &gvks)
		}
		for _, gvk := range gvks {
			if gvk.Kind == "" || bt.served[gvk] {
				continue
			}
			bt.served[gvk] = true
			bt.groups[gvk.Group] = true
			bt.versions[gvk.Kind] = append(bt.versions[gvk.Kind], gvk.GroupVersion())
		}
	}
	for _, gvs := range bt.versions {
		slices.SortFunc(gvs, func(a, b schema.GroupVersion) int { return strings.Compare(a.String(), b.String()) })
	}
	return bt, nil
}

// validate checks a built-in object; known is false when the object's kind is not built in (a custom
// resource). A kind of a built-in API group (or of a group without a dot, which no CRD can have) that the
// release does not serve is a problem: an API version Kubernetes removed, or a typo.
func (bt *builtinTypes) validate(id string, obj *unstructured.Unstructured) (problems []Problem, known bool) {
	gvk := obj.GroupVersionKind()
	if !bt.served[gvk] {
		if !bt.groups[gvk.Group] && strings.Contains(gvk.Group, ".") {
			return nil, false
		}
		reason := fmt.Sprintf("%s %s is not served by Kubernetes %s", obj.GetAPIVersion(), gvk.Kind, bt.version)
		if gvs := bt.versions[gvk.Kind]; len(gvs) > 0 {
			var names []string
			for _, gv := range gvs {
				names = append(names, gv.String())
			}
			reason += " (it serves " + gvk.Kind + " as " + strings.Join(names, ", ") + ")"
		}
		return []Problem{{Object: id, Field: "apiVersion", Reason: reason}}, true
	}
	_, err := bt.converter.ObjectToTyped(obj)
	if err == nil {
		return nil, true
	}
	var verrs typed.ValidationErrors
	if !errors.As(err, &verrs) {
		return []Problem{{Object: id, Reason: err.Error()}}, true
	}
	for _, e := range verrs {
		problems = append(problems, Problem{Object: id, Field: strings.TrimPrefix(e.Path, "."),
			Reason: smdReason(e.ErrorMessage)})
	}
	return problems, true
}

// smdReason words structured-merge-diff's findings as kube-apiserver's strict field validation does.
func smdReason(msg string) string {
	if msg == "field not declared in schema" {
		return "unknown field"
	}
	return msg
}
