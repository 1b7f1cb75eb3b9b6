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
	"bytes"
	"errors"
	"fmt"
	"io"
	"regexp"
	"strings"

	yaml "go.yaml.in/yaml/v3"
)

// docSeparator is a line starting with "---": kustomize's reader splits YAML streams there.
var docSeparator = regexp.MustCompile(`\n---.*\n`)

// maxMergeDepth bounds the aliases and merge keys followed to find a field.
const maxMergeDepth = 64

// configReason refuses KRM function configs (exec, container, starlark…) and Helm generators in content that
// kustomize may load as a generator/transformer/validator config or resource.
func configReason(content []byte) string {
	if !bytes.Contains(content, []byte("config.kubernetes.io/function")) &&
		!bytes.Contains(content, []byte("config.k8s.io/function")) &&
		!bytes.Contains(content, []byte("HelmChartInflationGenerator")) {
		return ""
	}
	nodes, err := yamlObjects(content)
	if err != nil {
		return "" // not YAML objects: kustomize reports it
	}
	for _, n := range nodes {
		if k := field(n, "kind", 0); k != nil && k.Value == "HelmChartInflationGenerator" {
			return "HelmChartInflationGenerator configs are not supported: list the chart in helmCharts"
		}
		ann := annotations(n)
		for _, key := range []string{"config.kubernetes.io/function", "config.k8s.io/function"} {
			if field(ann, key, 0) != nil {
				return fmt.Sprintf("KRM functions (%s annotation, exec or container) are not allowed", key)
			}
		}
	}
	return ""
}

// yamlObjects reads the objects of a YAML stream as kustomize's reader (kyaml's kio.FromBytes) does, so the
// guard judges exactly what kustomize would load: documents split on "---" lines (anything but a comment
// after the dashes is an error), the first value of each, empty and null documents skipped, and a stream of
// one List or ResourceList replaced by its items. It uses the YAML parser alone: kyaml links the network
// stack, which the guard must not.
// A syntax error is a *YAMLError with the line in content, and no path.
func yamlObjects(content []byte) ([]*yaml.Node, error) {
	docs, err := splitDocuments(strings.ReplaceAll(string(content), "\r\n", "\n"))
	if err != nil {
		return nil, err
	}
	var out []*yaml.Node
	for i, d := range docs {
		text := d.text
		if i != len(docs)-1 {
			text += "\n" // the split ate it
		}
		var doc yaml.Node
		if err := yaml.NewDecoder(strings.NewReader(text)).Decode(&doc); errors.Is(err, io.EOF) {
			continue
		} else if err != nil {
			return nil, yamlError("", d.line, []byte(text), err)
		}
		n := &doc
		if doc.Kind == yaml.DocumentNode {
			n = doc.Content[0]
		}
		if n.Tag == "!!null" {
			continue
		}
		if kind := rawField(n, "kind"); len(docs) == 1 && !isEmpty(kind) && (kind.Value == "List" ||
			kind.Value == "ResourceList") && (rawField(n, "items") != nil || rawField(n, "functionConfig") != nil) {
			if items := rawField(n, "items"); items != nil {
				out = append(out, items.Content...)
			}
			continue
		}
		out = append(out, n)
	}
	return out, nil
}

// document is one document of a YAML stream: its text, and the number of lines of the stream before it.
type document struct {
	text string
	line int
}

// splitDocuments splits s at its "---" lines. A bad separator is a *YAMLError.
func splitDocuments(s string) ([]document, error) {
	if s == "" {
		return nil, nil
	}
	var docs []document
	prev := 0
	for _, loc := range docSeparator.FindAllStringIndex(s, -1) {
		if rest := strings.TrimSpace(s[loc[0]+len("\n---") : loc[1]]); rest != "" && rest[0] != '#' {
			return nil, &YAMLError{Line: strings.Count(s[:loc[0]], "\n") + 2,
				Msg: "invalid document separator: " + strings.TrimSpace(s[loc[0]:loc[1]])}
		}
		docs = append(docs, document{text: s[prev:loc[0]], line: strings.Count(s[:prev], "\n")})
		prev = loc[1]
	}
	return append(docs, document{text: s[prev:], line: strings.Count(s[:prev], "\n")}), nil
}

// rawField is the value of the first key called name of mapping n, aliases not followed.
func rawField(n *yaml.Node, name string) *yaml.Node {
	if n.Kind != yaml.MappingNode {
		return nil
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		if n.Content[i].Value == name {
			return n.Content[i+1]
		}
	}
	return nil
}

// field is the value of the first key called name among the pairs of n's children, following aliases and,
// in a mapping, merge keys ("<<") after its own keys: the field kustomize sees once it has expanded them.
func field(n *yaml.Node, name string, depth int) *yaml.Node {
	n = deref(n, depth)
	if n == nil || depth > maxMergeDepth {
		return nil
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		if k := deref(n.Content[i], depth); k != nil && !isMergeKey(k) && k.Value == name {
			return deref(n.Content[i+1], depth)
		}
	}
	if n.Kind != yaml.MappingNode {
		return nil
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		if !isMergeKey(n.Content[i]) {
			continue
		}
		src := deref(n.Content[i+1], depth)
		sources := []*yaml.Node{src}
		if src != nil && src.Kind == yaml.SequenceNode {
			sources = src.Content
		}
		for _, m := range sources {
			if v := field(m, name, depth+1); v != nil {
				return v
			}
		}
	}
	return nil
}

// annotations is the metadata.annotations mapping of object n, or nil.
func annotations(n *yaml.Node) *yaml.Node {
	meta := field(n, "metadata", 0)
	if isEmpty(meta) {
		return nil
	}
	return field(meta, "annotations", 0)
}

// deref follows n while it is an alias.
func deref(n *yaml.Node, depth int) *yaml.Node {
	for ; n != nil && n.Kind == yaml.AliasNode; depth++ {
		if depth > maxMergeDepth {
			return nil
		}
		n = n.Alias
	}
	return n
}

func isMergeKey(n *yaml.Node) bool { return n.Kind == yaml.ScalarNode && n.Tag == "!!merge" }

// isEmpty reports a missing, null or empty value.
func isEmpty(n *yaml.Node) bool {
	if n == nil || n.Tag == "!!null" {
		return true
	}
	switch n.Kind {
	case yaml.MappingNode, yaml.SequenceNode:
		return len(n.Content) == 0
	case yaml.ScalarNode:
		return n.Value == ""
	}
	return false
}
