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
	"regexp"
	"strconv"
	"strings"
)

// reference is one `$(name)` in a string.
var reference = regexp.MustCompile(`\$\(([^()]+)\)`)

// globals fills `$(name)` references from a config's global variables. A global may refer to other globals;
// one that refers to itself, directly or through others, is an error that names the cycle.
type globals struct {
	vars map[string]any
	done map[string]any
}

func newGlobals(vars map[string]any) *globals {
	return &globals{vars: vars, done: map[string]any{}}
}

// fill returns v with every reference in its strings filled, walking maps and lists; keys stay as written.
// A string that is one whole reference takes the global's value and type (`$(replicas)` gives 3, not "3").
func (g *globals) fill(v any) (any, error) {
	return g.fillIn(v, nil)
}

func (g *globals) fillIn(v any, stack []string) (any, error) {
	switch t := v.(type) {
	case string:
		return g.fillString(t, stack)
	case map[string]any:
		out := make(map[string]any, len(t))
		for k, e := range t {
			f, err := g.fillIn(e, stack)
			if err != nil {
				return nil, err
			}
			out[k] = f
		}
		return out, nil
	case []any:
		out := make([]any, len(t))
		for i, e := range t {
			f, err := g.fillIn(e, stack)
			if err != nil {
				return nil, err
			}
			out[i] = f
		}
		return out, nil
	default:
		return v, nil
	}
}

func (g *globals) fillString(s string, stack []string) (any, error) {
	if m := reference.FindStringSubmatch(s); m != nil && m[0] == s {
		return g.lookup(m[1], stack)
	}
	var firstErr error
	out := reference.ReplaceAllStringFunc(s, func(ref string) string {
		name := ref[2 : len(ref)-1]
		v, err := g.lookup(name, stack)
		if err == nil {
			var text string
			if text, err = scalarText(name, v); err == nil {
				return text
			}
		}
		if firstErr == nil {
			firstErr = err
		}
		return ref
	})
	if firstErr != nil {
		return nil, firstErr
	}
	return out, nil
}

// lookup is the filled value of global name.
func (g *globals) lookup(name string, stack []string) (any, error) {
	if v, ok := g.done[name]; ok {
		return v, nil
	}
	for i, s := range stack {
		if s == name {
			return nil, fmt.Errorf("global %q refers to itself: %s", name,
				strings.Join(append(append([]string{}, stack[i:]...), name), " → "))
		}
	}
	raw, ok := g.vars[name]
	if !ok {
		return nil, fmt.Errorf("$(%s): no global named %q", name, name)
	}
	v, err := g.fillIn(raw, append(stack, name))
	if err != nil {
		return nil, err
	}
	g.done[name] = v
	return v, nil
}

// scalarText is v as it reads inside a longer string; a map or a list cannot stand inside one.
func scalarText(name string, v any) (string, error) {
	switch t := v.(type) {
	case string:
		return t, nil
	case nil:
		return "", nil
	case bool:
		return strconv.FormatBool(t), nil
	case int:
		return strconv.Itoa(t), nil
	case float64:
		return strconv.FormatFloat(t, 'g', -1, 64), nil
	default:
		return "", fmt.Errorf("$(%s) is a %T and cannot stand inside a longer string", name, v)
	}
}
