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

package guard

import (
	"fmt"
	"regexp"
	"strings"

	"sigs.k8s.io/yaml"
)

// refKind says how a kustomization field entry is loaded by kustomize.
type refKind int

const (
	refFile      refKind = iota // a file path
	refFileOrDir                // a file, or a folder holding a kustomization
	refInline                   // YAML content given inline (checked, not loaded)
)

// kustRef is one reference a kustomization makes.
type kustRef struct {
	field string // e.g. "resources[2]", "configMapGenerator[0].files[1]"
	value string
	kind  refKind
	// config marks generator/transformer/validator configs (checked for KRM functions and Helm).
	config bool
	// notYAML marks a file kustomize reads as data, not YAML (the files and env files of generators).
	notYAML bool
}

// userAtPrefix matches the user@ of an scp-like Git reference (git@host:org/repo).
var userAtPrefix = regexp.MustCompile(`^[a-zA-Z][a-zA-Z0-9-]*@`)

// refusedFields are the kustomization fields siteops never builds: the long-removed helmChartInflationGenerator
// (helmCharts replaced it).
func refusedFields() []string {
	return []string{"helmChartInflationGenerator"}
}

// deprecatedFields are the deprecated kustomization fields, sorted.
func deprecatedFields() []string {
	return []string{"bases", "commonLabels", "imageTags", "patchesJson6902", "patchesStrategicMerge", "vars"}
}

// deprecatedFieldReplacement is the field kustomize wants instead of deprecated field f.
func deprecatedFieldReplacement(f string) string {
	switch f {
	case "bases":
		return "resources"
	case "patchesStrategicMerge", "patchesJson6902":
		return "patches"
	case "commonLabels":
		return "labels"
	case "imageTags":
		return "images"
	case "vars":
		return "replacements"
	}
	return ""
}

// parsedKustomization is what the guard needs from a kustomization file.
type parsedKustomization struct {
	refs       []kustRef
	deprecated []string // deprecated fields present, sorted
	openAPI    bool
	namespace  string     // the kustomization's namespace field
	chartHome  string     // helmGlobals.chartHome
	charts     []chartRef // helmCharts, in order
}

// parseKustomization extracts every file reference of a kustomization and refuses the fields siteops never
// builds. Errors do not name the file; the caller adds it. Invalid YAML is a *YAMLError.
func parseKustomization(content []byte) (*parsedKustomization, error) {
	var doc map[string]any
	if err := yaml.Unmarshal(content, &doc); err != nil {
		return nil, yamlError("", 0, content, err)
	}
	for _, f := range refusedFields() {
		if v, ok := doc[f]; ok && v != nil {
			return nil, fmt.Errorf("field %q is not supported: use helmCharts", f)
		}
	}
	p := &parsedKustomization{}
	for _, f := range deprecatedFields() {
		if v, ok := doc[f]; ok && v != nil {
			p.deprecated = append(p.deprecated, f)
		}
	}
	var err error
	add := func(field string, kind refKind, config bool) func(string, string) {
		return func(name, v string) {
			p.refs = append(p.refs, kustRef{field: name, value: v, kind: kind, config: config})
		}
	}
	for _, f := range []string{"resources", "bases", "components"} {
		err = firstErr(err, eachString(doc, f, add(f, refFileOrDir, false)))
	}
	for _, f := range []string{"crds", "configurations"} {
		err = firstErr(err, eachString(doc, f, add(f, refFile, false)))
	}
	err = firstErr(err, eachString(doc, "patchesStrategicMerge", func(name, v string) {
		kind := refFile
		if isInlineYAML(v) {
			kind = refInline
		}
		p.refs = append(p.refs, kustRef{field: name, value: v, kind: kind})
	}))
	for _, f := range []string{"generators", "transformers", "validators"} {
		err = firstErr(err, eachString(doc, f, func(name, v string) {
			kind := refFileOrDir
			if isInlineYAML(v) {
				kind = refInline
			}
			p.refs = append(p.refs, kustRef{field: name, value: v, kind: kind, config: true})
		}))
	}
	for _, f := range []string{"patches", "patchesJson6902", "replacements"} {
		err = firstErr(err, eachMap(doc, f, func(name string, m map[string]any) error {
			return optionalString(m, name, "path", add(f, refFile, false))
		}))
	}
	for _, f := range []string{"configMapGenerator", "secretGenerator"} {
		err = firstErr(err, eachMap(doc, f, func(name string, m map[string]any) error {
			data := func(n, v string) {
				p.refs = append(p.refs, kustRef{field: n, value: v, kind: refFile, notYAML: true})
			}
			e := eachString(m, "files", func(n, v string) {
				if _, path, ok := strings.Cut(v, "="); ok {
					v = path
				}
				data(name+"."+n, v)
			})
			e = firstErr(e, eachString(m, "envs", func(n, v string) { data(name+"."+n, v) }))
			return firstErr(e, optionalString(m, name, "env", data))
		}))
	}
	if ns, ok := doc["namespace"].(string); ok {
		p.namespace = ns
	}
	err = firstErr(err, parseCharts(doc, p))
	if v, ok := doc["openapi"]; ok && v != nil {
		m, isMap := v.(map[string]any)
		if !isMap {
			return nil, fmt.Errorf("field \"openapi\": expected a mapping")
		}
		p.openAPI = true
		err = firstErr(err, optionalString(m, "openapi", "path", add("openapi", refFile, false)))
	}
	if err != nil {
		return nil, err
	}
	return p, nil
}

// eachString calls fn for every string of list field f (a missing or null field is empty).
func eachString(doc map[string]any, f string, fn func(name, v string)) error {
	v, ok := doc[f]
	if !ok || v == nil {
		return nil
	}
	list, isList := v.([]any)
	if !isList {
		return fmt.Errorf("field %q: expected a list", f)
	}
	for i, item := range list {
		s, isString := item.(string)
		if !isString {
			return fmt.Errorf("field %s[%d]: expected a string", f, i)
		}
		fn(fmt.Sprintf("%s[%d]", f, i), s)
	}
	return nil
}

// eachMap calls fn for every mapping of list field f.
func eachMap(doc map[string]any, f string, fn func(name string, m map[string]any) error) error {
	v, ok := doc[f]
	if !ok || v == nil {
		return nil
	}
	list, isList := v.([]any)
	if !isList {
		return fmt.Errorf("field %q: expected a list", f)
	}
	for i, item := range list {
		m, isMap := item.(map[string]any)
		if !isMap {
			return fmt.Errorf("field %s[%d]: expected a mapping", f, i)
		}
		if err := fn(fmt.Sprintf("%s[%d]", f, i), m); err != nil {
			return err
		}
	}
	return nil
}

// optionalString calls fn with key's string value when present.
func optionalString(m map[string]any, name, key string, fn func(name, v string)) error {
	v, ok := m[key]
	if !ok || v == nil {
		return nil
	}
	s, isString := v.(string)
	if !isString {
		return fmt.Errorf("field %s.%s: expected a string", name, key)
	}
	if s != "" {
		fn(name+"."+key, s)
	}
	return nil
}

// isInlineYAML reports whether a patchesStrategicMerge/generators/transformers/validators entry is content
// rather than a path: kustomize treats a string that parses as YAML objects as inline.
func isInlineYAML(s string) bool {
	if !strings.Contains(strings.TrimSpace(s), "\n") && !strings.Contains(s, ": ") {
		return false
	}
	var m map[string]any
	return yaml.Unmarshal([]byte(s), &m) == nil && len(m) > 0
}

// refReason explains why a reference is not a plain path inside the checkout ("" when it is). It is a
// superset of what kustomize would fetch (URLs, git::, user@host, github.com/…, ?ref=) or read outside the
// checkout (absolute paths). Inline content is judged by its first line only, as kustomize would parse it.
func refReason(s string, inline bool) string {
	first, _, _ := strings.Cut(strings.TrimSpace(s), "\n")
	lower := strings.ToLower(first)
	switch {
	case strings.Contains(lower, "://"), strings.HasPrefix(lower, "git::"), userAtPrefix.MatchString(first),
		strings.HasPrefix(lower, "github.com/"), strings.HasPrefix(lower, "github.com:"):
		return "remote references are not allowed (siteops builds only from the checkout)"
	case inline:
		return ""
	case strings.Contains(first, "?"):
		return "remote references are not allowed (siteops builds only from the checkout)"
	case strings.HasPrefix(first, "/"), strings.HasPrefix(first, "\\"), strings.Contains(first, ":"):
		return "absolute paths are not allowed (the path must stay inside the checkout)"
	case strings.HasPrefix(first, "~"):
		return "home-relative paths are not allowed"
	}
	return ""
}

func firstErr(a, b error) error {
	if a != nil {
		return a
	}
	return b
}
