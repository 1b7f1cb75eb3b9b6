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

package helmvalues

import (
	"fmt"
	"strings"
)

// The apiVersions of the HelmReleases a config applies to.
const (
	// HelmOperatorAPIVersion is Decapod's HelmRelease, Flux v1's Helm Operator's.
	HelmOperatorAPIVersion = "helm.fluxcd.io/v1"
	// FluxAPIVersion is Flux v2's HelmRelease.
	FluxAPIVersion = "helm.toolkit.fluxcd.io/v2"
)

// IsHelmRelease tells whether obj is a HelmRelease this package transforms.
func IsHelmRelease(obj map[string]any) bool {
	av, _ := obj["apiVersion"].(string)
	return obj["kind"] == "HelmRelease" && (av == HelmOperatorAPIVersion || av == FluxAPIVersion)
}

// Apply applies c to the HelmReleases among objs, in place, chart entries in file order and each entry's
// overrides in file order: a later entry wins over an earlier one where they set the same key. An entry
// whose HelmRelease is not among objs changes nothing, as in Decapod, where one site-values.yaml serves
// every group. Errors name the config's file and line.
func (c *Config) Apply(objs []map[string]any) error {
	g := newGlobals(c.Global)
	for _, ch := range c.Charts {
		for _, obj := range objs {
			if !IsHelmRelease(obj) || name(obj) != ch.Name {
				continue
			}
			if err := c.applyChart(g, ch, obj); err != nil {
				return err
			}
		}
	}
	return nil
}

func (c *Config) applyChart(g *globals, ch Chart, obj map[string]any) error {
	spec := child(obj, "spec")
	if err := c.applySource(g, ch, obj, spec); err != nil {
		return err
	}
	values := child(spec, "values")
	for _, o := range ch.Override {
		v, err := g.fill(o.Value)
		if err != nil {
			return fmt.Errorf("%s:%d: %w", c.File, o.Line, err)
		}
		if err := set(values, o.Path, v); err != nil {
			return fmt.Errorf("%s:%d: override %s: %w", c.File, o.Line, strings.Join(o.Path, "."), err)
		}
	}
	return nil
}

// applySource sets the chart reference: spec.chart's repository, name and version for Decapod's kind,
// spec.chart.spec's chart and version for Flux v2's, whose repository is a source object and not a URL.
func (c *Config) applySource(g *globals, ch Chart, obj, spec map[string]any) error {
	fields := []struct{ from, to string }{
		{ch.Source.Repository, "repository"}, {ch.Source.Name, "name"}, {ch.Source.Version, "version"},
	}
	chart := child(spec, "chart")
	if obj["apiVersion"] == FluxAPIVersion {
		if ch.Source.Repository != "" {
			return fmt.Errorf("%s:%d: source.repository: a %s HelmRelease names its repository by sourceRef, "+
				"not a URL", c.File, ch.Line, FluxAPIVersion)
		}
		chart = child(chart, "spec")
		fields[1].to = "chart"
	}
	for _, f := range fields {
		if f.from == "" {
			continue
		}
		v, err := g.fill(f.from)
		if err != nil {
			return fmt.Errorf("%s:%d: source.%s: %w", c.File, ch.Line, f.to, err)
		}
		chart[f.to] = v
	}
	return nil
}

// set merges v into m at path: maps merge key by key, a null removes the key, anything else replaces what was
// there. A path that goes
// through a value that is not a map is an error rather than a silent replacement of that value.
func set(m map[string]any, path []string, v any) error {
	for i, k := range path[:len(path)-1] {
		next, ok := m[k]
		if !ok || next == nil {
			nm := map[string]any{}
			m[k] = nm
			m = nm
			continue
		}
		nm, ok := next.(map[string]any)
		if !ok {
			return fmt.Errorf("%s is a %T, not a map", strings.Join(path[:i+1], "."), next)
		}
		m = nm
	}
	last := path[len(path)-1]
	if v == nil {
		delete(m, last)
		return nil
	}
	if src, ok := v.(map[string]any); ok {
		if dst, ok := m[last].(map[string]any); ok {
			merge(dst, src)
			return nil
		}
	}
	m[last] = v
	return nil
}

// merge deep-merges src into dst: maps key by key, everything else replaced, a null removes the key (a JSON
// merge patch, as kustomize patches a HelmRelease).
func merge(dst, src map[string]any) {
	for k, sv := range src {
		if sv == nil {
			delete(dst, k)
			continue
		}
		if sm, ok := sv.(map[string]any); ok {
			if dm, ok := dst[k].(map[string]any); ok {
				merge(dm, sm)
				continue
			}
		}
		dst[k] = sv
	}
}

func name(obj map[string]any) string {
	md, _ := obj["metadata"].(map[string]any)
	n, _ := md["name"].(string)
	return n
}

// child is m[k] as a map, made when it is missing or not a map.
func child(m map[string]any, k string) map[string]any {
	c, ok := m[k].(map[string]any)
	if !ok {
		c = map[string]any{}
		m[k] = c
	}
	return c
}
