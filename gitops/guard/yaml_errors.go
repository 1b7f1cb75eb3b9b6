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
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

// YAMLError is a YAML syntax error in a file a site's kustomization loads: the file's path in the checkout
// and the line of the error (0 when the parser gave none).
type YAMLError struct {
	Path string
	Line int
	Msg  string
}

func (e *YAMLError) Error() string {
	if e.Line > 0 {
		return fmt.Sprintf("%s:%d: invalid YAML: %s", e.Path, e.Line, e.Msg)
	}
	return fmt.Sprintf("%s: invalid YAML: %s", e.Path, e.Msg)
}

// yamlLine finds the line in a YAML parser's error ("yaml: line 3: mapping values are not allowed in this
// context"); the YAML libraries give it only in their message.
var yamlLine = regexp.MustCompile(`yaml: line (\d+): (.*)$`)

// yamlError is the *YAMLError of a parser's err about text that starts after line offset of path.
func yamlError(path string, offset int, err error) *YAMLError {
	msg := err.Error()
	if m := yamlLine.FindStringSubmatch(msg); m != nil {
		if n, convErr := strconv.Atoi(m[1]); convErr == nil {
			return &YAMLError{Path: path, Line: offset + n, Msg: m[2]}
		}
	}
	return &YAMLError{Path: path, Msg: strings.TrimPrefix(msg, "yaml: ")}
}

// CheckYAML returns the first YAML syntax error (a *YAMLError) among the files the site's kustomization loads
// as YAML (resources, patches, CRDs, configurations, replacements, generator and transformer configs), in the
// order the walk reached them, or nil. The render stage asks when kustomize fails, so a YAML mistake is told
// with its file and line instead of kustomize's message about a patch or resource it could not read.
func (in *Inputs) CheckYAML() error {
	for _, p := range in.yamlFiles {
		_, err := yamlObjects(in.Files[p])
		var yerr *YAMLError
		if errors.As(err, &yerr) {
			return &YAMLError{Path: p, Line: yerr.Line, Msg: yerr.Msg}
		}
	}
	return nil
}
