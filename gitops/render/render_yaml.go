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

package render

import (
	"bytes"
	"encoding/json"
	"errors"
	"strings"
	"unicode/utf8"

	yamlv2 "go.yaml.in/yaml/v2"
	"sigs.k8s.io/kustomize/api/resmap"
	"sigs.k8s.io/kustomize/api/resource"
	kyaml "sigs.k8s.io/kustomize/kyaml/yaml"
)

// errUnsure is returned by plainValue for a node it cannot convert with certainty: the resource is then
// serialized by kustomize's own AsYAML.
var errUnsure = errors.New("not a plain node")

// asYAML is the YAML stream kustomize's ResMap.AsYaml prints for m, byte for byte, without its round trip
// through text. AsYaml prints each resource as YAML text, decodes that with yaml.v3, encodes the value as
// JSON, decodes the JSON with yaml.v2 and encodes the result with yaml.v2. The value that last encoding
// sees is a pure function of the node tree, so asYAML builds it from the nodes directly and hands it to the
// same yaml.v2 encoder. When a resource holds anything whose conversion is not certain (anchors, aliases,
// merge keys, timestamps, custom tags, duplicate or non-string keys, strings YAML cannot print raw), the whole
// map is printed by kustomize's AsYaml instead, so the output and its errors stay kustomize's.
func asYAML(m resmap.ResMap) ([]byte, error) {
	var buf bytes.Buffer
	for i, r := range m.Resources() {
		out, ok := resourceYAML(r)
		if !ok {
			return m.AsYaml()
		}
		if i > 0 {
			buf.WriteString("---\n")
		}
		buf.Write(out)
	}
	return buf.Bytes(), nil
}

// resourceYAML prints one resource as kustomize's Resource.AsYAML does; ok is false when it is not sure to.
func resourceYAML(r *resource.Resource) (out []byte, ok bool) {
	n := r.YNode()
	if n == nil || n.Kind != kyaml.MappingNode {
		return nil, false
	}
	v, err := plainValue(n, false)
	if err != nil {
		return nil, false
	}
	if out, err = yamlv2.Marshal(v); err != nil {
		return nil, false
	}
	return out, true
}

// plainValue is the yaml.v2 value of n as the round trip through text and JSON yields it, or errUnsure;
// flow is set inside a flow collection, where printing quotes an empty scalar, so that an empty null reads
// back as a string.
func plainValue(n *kyaml.Node, flow bool) (any, error) {
	if n.Anchor != "" {
		return nil, errUnsure
	}
	flow = flow || n.Style&kyaml.FlowStyle != 0
	switch n.Kind {
	case kyaml.MappingNode:
		if n.ShortTag() != "!!map" || len(n.Content)%2 != 0 {
			return nil, errUnsure
		}
		m := make(map[any]any, len(n.Content)/2)
		for i := 0; i < len(n.Content); i += 2 {
			k := n.Content[i]
			if k.Kind != kyaml.ScalarNode || k.Anchor != "" || k.ShortTag() != kyaml.NodeTagString ||
				!printable(k.Value) {
				return nil, errUnsure
			}
			if _, dup := m[k.Value]; dup {
				return nil, errUnsure
			}
			v, err := plainValue(n.Content[i+1], flow)
			if err != nil {
				return nil, err
			}
			m[k.Value] = v
		}
		return m, nil
	case kyaml.SequenceNode:
		if n.ShortTag() != "!!seq" {
			return nil, errUnsure
		}
		s := make([]any, len(n.Content))
		for i, c := range n.Content {
			v, err := plainValue(c, flow)
			if err != nil {
				return nil, err
			}
			s[i] = v
		}
		return s, nil
	case kyaml.ScalarNode:
		if flow && n.Value == "" && n.ShortTag() != kyaml.NodeTagString {
			return nil, errUnsure
		}
		return plainScalar(n)
	}
	return nil, errUnsure
}

// plainScalar is plainValue of a scalar node.
func plainScalar(n *kyaml.Node) (any, error) {
	switch n.ShortTag() {
	case kyaml.NodeTagString:
		if !printable(n.Value) || n.Style&kyaml.FoldedStyle != 0 {
			return nil, errUnsure
		}
		if strings.Contains(n.Value, "\n") {
			return multiLine(n)
		}
		return n.Value, nil
	case kyaml.NodeTagNull:
		return nil, nil
	case kyaml.NodeTagBool, kyaml.NodeTagInt, kyaml.NodeTagFloat:
		var v any
		if err := n.Decode(&v); err != nil {
			return nil, errUnsure
		}
		switch v := v.(type) {
		case bool, int:
			return v, nil
		}
		// Other numbers go the same way as in the round trip: JSON text, read back by yaml.v2.
		j, err := json.Marshal(v)
		if err != nil {
			return nil, errUnsure
		}
		var out any
		if err := yamlv2.Unmarshal(j, &out); err != nil {
			return nil, errUnsure
		}
		return out, nil
	}
	return nil, errUnsure
}

// multiLine is the string a multi-line scalar reads back as once printed: printing chooses a block style
// and its indentation from the value, and a block does not always read back as the value it was printed from.
func multiLine(n *kyaml.Node) (any, error) {
	key := &kyaml.Node{Kind: kyaml.ScalarNode, Tag: kyaml.NodeTagString, Value: "k"}
	doc := &kyaml.Node{Kind: kyaml.MappingNode, Content: []*kyaml.Node{key, n}}
	text, err := kyaml.String(doc)
	if err != nil {
		return nil, errUnsure
	}
	var m map[string]any
	if err := kyaml.Unmarshal([]byte(text), &m); err != nil {
		return nil, errUnsure
	}
	v, ok := m["k"].(string)
	if !ok {
		return nil, errUnsure
	}
	return v, nil
}

// printable reports whether s is valid UTF-8 made only of characters that JSON leaves as they are and YAML
// reads raw: the round trip through JSON text could otherwise change the string or fail on it.
func printable(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 && c != '\t' && c != '\n' && c != '\r' || c >= 0x7f {
			return printableRunes(s)
		}
	}
	return true
}

// printableRunes is printable for a string that holds characters outside printable ASCII.
func printableRunes(s string) bool {
	if !utf8.ValidString(s) {
		return false
	}
	for _, c := range s {
		switch {
		case c == '\t' || c == '\n' || c == '\r':
		case c >= 0x20 && c <= 0x7e:
		case c >= 0xa0 && c <= 0xd7ff:
		case c >= 0xe000 && c <= 0xfffd:
		case c >= 0x10000 && c <= 0x10ffff:
		default:
			return false
		}
	}
	return true
}
