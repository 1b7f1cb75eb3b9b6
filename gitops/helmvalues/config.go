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

// Package helmvalues is Decapod's HelmValuesTransformer as a built-in: one site-values.yaml sets the values of
// many HelmReleases, from `global:` variables and per-chart `override:` entries. It reads and writes plain
// objects and knows nothing of kustomize, Git or Helm.
package helmvalues

import (
	"bytes"
	"fmt"

	"go.yaml.in/yaml/v3"
)

// APIVersion and Kind name a HelmValuesTransformer config.
const (
	APIVersion = "openinfradev.github.com/v1"
	Kind       = "HelmValuesTransformer"
)

// MaxConfigBytes bounds one config file; a larger one is refused before it is parsed.
const MaxConfigBytes = 4 << 20

// Config is one HelmValuesTransformer file.
type Config struct {
	// File is the config's path, for messages.
	File string
	// Global holds the variables that `$(name)` refers to.
	Global map[string]any
	// Charts are the entries in file order, which is the order they apply in.
	Charts []Chart
}

// Chart is one `charts:` entry: the HelmRelease it targets and what it sets there.
type Chart struct {
	// Name is the HelmRelease's metadata.name.
	Name string
	// Source overrides the release's chart reference; empty fields are left alone.
	Source Source
	// Override are the dotted-path entries in file order.
	Override []Override
	// Line is the entry's line in File.
	Line int
}

// Source is a chart entry's `source:`.
type Source struct {
	Repository string
	Name       string
	Version    string
}

// Override is one `override:` entry: a dotted path into spec.values and the value to set there.
type Override struct {
	Path  []string
	Value any
	Line  int
}

// IsConfig tells whether b is a HelmValuesTransformer config, from its apiVersion and kind.
func IsConfig(b []byte) bool {
	if !bytes.Contains(b, []byte(Kind)) {
		return false
	}
	var head struct {
		APIVersion string `yaml:"apiVersion"`
		Kind       string `yaml:"kind"`
	}
	if yaml.Unmarshal(b, &head) != nil {
		return false
	}
	return head.APIVersion == APIVersion && head.Kind == Kind
}

// Parse reads a HelmValuesTransformer config. Every mistake is an error that names file and line: a field of
// the wrong type, an unknown field, a chart without a name or a path that is empty.
func Parse(file string, b []byte) (*Config, error) {
	if len(b) > MaxConfigBytes {
		return nil, fmt.Errorf("%s: %d bytes, more than the %d a HelmValuesTransformer may have", file, len(b),
			MaxConfigBytes)
	}
	var doc yaml.Node
	if err := yaml.Unmarshal(b, &doc); err != nil {
		return nil, fmt.Errorf("%s: invalid YAML: %w", file, err)
	}
	if len(doc.Content) == 0 {
		return nil, fmt.Errorf("%s: empty HelmValuesTransformer", file)
	}
	root := doc.Content[0]
	if root.Kind != yaml.MappingNode {
		return nil, typeError(file, root, "the config", "a mapping")
	}
	c := &Config{File: file}
	for i := 0; i+1 < len(root.Content); i += 2 {
		key, val := root.Content[i], root.Content[i+1]
		var err error
		switch key.Value {
		case "apiVersion", "kind", "metadata":
		case "global":
			err = c.parseGlobal(val)
		case "charts":
			err = c.parseCharts(val)
		default:
			err = fmt.Errorf("%s:%d: unknown field %q (want global or charts)", file, key.Line, key.Value)
		}
		if err != nil {
			return nil, err
		}
	}
	if c.Charts == nil {
		return nil, fmt.Errorf("%s: no charts: a HelmValuesTransformer needs a list of charts", file)
	}
	return c, nil
}

func (c *Config) parseGlobal(n *yaml.Node) error {
	if n.Kind != yaml.MappingNode {
		return typeError(c.File, n, "global", "a mapping of variables")
	}
	c.Global = map[string]any{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		var v any
		if err := n.Content[i+1].Decode(&v); err != nil {
			return fmt.Errorf("%s:%d: global %s: %w", c.File, n.Content[i+1].Line, n.Content[i].Value, err)
		}
		c.Global[n.Content[i].Value] = v
	}
	return nil
}

func (c *Config) parseCharts(n *yaml.Node) error {
	if n.Kind != yaml.SequenceNode {
		return typeError(c.File, n, "charts", "a list")
	}
	c.Charts = []Chart{}
	for _, e := range n.Content {
		ch, err := c.parseChart(e)
		if err != nil {
			return err
		}
		c.Charts = append(c.Charts, ch)
	}
	return nil
}

func (c *Config) parseChart(n *yaml.Node) (Chart, error) {
	ch := Chart{Line: n.Line}
	if n.Kind != yaml.MappingNode {
		return ch, typeError(c.File, n, "a charts entry", "a mapping")
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		key, val := n.Content[i], n.Content[i+1]
		var err error
		switch key.Value {
		case "name":
			err = scalar(c.File, val, "name", &ch.Name)
		case "source":
			err = c.parseSource(val, &ch.Source)
		case "override":
			ch.Override, err = c.parseOverride(val)
		default:
			err = fmt.Errorf("%s:%d: unknown field %q in a charts entry (want name, source or override)",
				c.File, key.Line, key.Value)
		}
		if err != nil {
			return ch, err
		}
	}
	if ch.Name == "" {
		return ch, fmt.Errorf("%s:%d: a charts entry needs a name", c.File, n.Line)
	}
	return ch, nil
}

func (c *Config) parseSource(n *yaml.Node, s *Source) error {
	if n.Kind != yaml.MappingNode {
		return typeError(c.File, n, "source", "a mapping")
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		key, val := n.Content[i], n.Content[i+1]
		var err error
		switch key.Value {
		case "repository":
			err = scalar(c.File, val, "source.repository", &s.Repository)
		case "name":
			err = scalar(c.File, val, "source.name", &s.Name)
		case "version":
			err = scalar(c.File, val, "source.version", &s.Version)
		default:
			err = fmt.Errorf("%s:%d: unknown field %q in source (want repository, name or version)",
				c.File, key.Line, key.Value)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

func (c *Config) parseOverride(n *yaml.Node) ([]Override, error) {
	if n.Kind != yaml.MappingNode {
		return nil, typeError(c.File, n, "override", "a mapping of dotted paths")
	}
	var out []Override
	for i := 0; i+1 < len(n.Content); i += 2 {
		key, val := n.Content[i], n.Content[i+1]
		p, err := SplitPath(key.Value)
		if err != nil {
			return nil, fmt.Errorf("%s:%d: override %q: %w", c.File, key.Line, key.Value, err)
		}
		var v any
		if err := val.Decode(&v); err != nil {
			return nil, fmt.Errorf("%s:%d: override %q: %w", c.File, val.Line, key.Value, err)
		}
		out = append(out, Override{Path: p, Value: v, Line: key.Line})
	}
	return out, nil
}

func scalar(file string, n *yaml.Node, field string, into *string) error {
	if n.Kind != yaml.ScalarNode {
		return typeError(file, n, field, "a string")
	}
	*into = n.Value
	return nil
}

func typeError(file string, n *yaml.Node, what, want string) error {
	got := map[yaml.Kind]string{yaml.MappingNode: "a mapping", yaml.SequenceNode: "a list",
		yaml.ScalarNode: "a scalar", yaml.AliasNode: "an alias"}[n.Kind]
	return fmt.Errorf("%s:%d: %s must be %s, not %s", file, n.Line, what, want, got)
}
