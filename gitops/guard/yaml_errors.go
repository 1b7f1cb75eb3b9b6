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
	"slices"
	"strconv"
	"strings"

	yaml "go.yaml.in/yaml/v3"
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

// yamlParserProblems are the messages of the YAML parser's errors, as opposed to its scanner's: the YAML
// libraries (yaml.v2 and yaml.v3 alike) print the line of a parser error counted from 0, of a scanner error
// counted from 1, and no line at all for an error on the first line.
func yamlParserProblems() []string {
	return []string{
		"did not find expected ',' or ']'",
		"did not find expected ',' or '}'",
		"did not find expected '-' indicator",
		"did not find expected <document start>",
		"did not find expected <stream-start>",
		"did not find expected key",
		"did not find expected node content",
		"found duplicate %TAG directive",
		"found duplicate %YAML directive",
		"found incompatible YAML document",
		"found undefined tag handle",
	}
}

// yamlError is the *YAMLError of a parser's err about text, which starts after line offset of path. Its line
// counts from 1, as an editor does.
func yamlError(path string, offset int, text []byte, err error) *YAMLError {
	msg := strings.TrimPrefix(err.Error(), "error converting YAML to JSON: ")
	line := 0
	if m := yamlLine.FindStringSubmatch(msg); m != nil {
		if n, convErr := strconv.Atoi(m[1]); convErr == nil {
			line, msg = n, m[2]
		}
	} else {
		msg = strings.TrimPrefix(msg, "yaml: ")
	}
	switch {
	case strings.HasPrefix(msg, "did not find expected ',' or "):
		line = openingLine(text, msg, line+1)
	case slices.Contains(yamlParserProblems(), msg):
		line++ // from 0, or no line on line 1
	case line == 0 && firstLineError(text, msg):
		line = 1
	}
	if line == 0 {
		return &YAMLError{Path: path, Msg: msg}
	}
	return &YAMLError{Path: path, Line: offset + line, Msg: msg}
}

// firstLineError tells whether the scanner error msg, printed without a line, is on the first line of text:
// it is when the same text after an empty line fails with msg on line 2.
func firstLineError(text []byte, msg string) bool {
	return afterEmptyLine(text) == "yaml: line 2: "+msg
}

// openingLine is the line of the bracket that opens the unclosed flow collection of the parser error msg
// about text, or line when it cannot tell. The parser prints that line, counted from 0, unless it is the
// first line, when it prints the line where it gave up instead; after an empty line the bracket is never on
// the first line, and the printed number is its line in text counted from 1.
func openingLine(text []byte, msg string, line int) int {
	if m := yamlLine.FindStringSubmatch(afterEmptyLine(text)); m != nil && m[2] == msg {
		if n, err := strconv.Atoi(m[1]); err == nil && n > 0 {
			return n
		}
	}
	return line
}

// afterEmptyLine is yaml.v3's error parsing text after an empty line, or "".
func afterEmptyLine(text []byte) string {
	var n yaml.Node
	if err := yaml.Unmarshal(append([]byte("\n"), text...), &n); err != nil {
		return err.Error()
	}
	return ""
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
