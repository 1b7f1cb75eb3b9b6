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

package helmchart

import (
	"fmt"
	"regexp"
	"sort"
	"strings"
	"text/template"
)

// nondeterministic lists the template functions whose result depends on randomness or the clock.
func nondeterministic() []string {
	return []string{
		"randAlphaNum", "randAlpha", "randNumeric", "randAscii", "randBytes", "randInt", "shuffle", "uuidv4",
		"genCA", "genCAWithKey", "genPrivateKey", "genSelfSignedCert", "genSelfSignedCertWithKey",
		"genSignedCert", "genSignedCertWithKey", "encryptAES", "bcrypt", "htpasswd",
		"now", "ago", "htmlDate", "dateInZone", "date_in_zone", "dateModify", "date_modify",
	}
}

// refusedReason is why a render may not call template function name: randomness and the clock would make every
// render differ, and a DNS lookup would make it depend on the network.
func refusedReason(name string) string {
	if name == "getHostByName" {
		return "which would make renders depend on DNS (siteops renders without the network)"
	}
	return "which would make renders nondeterministic"
}

// refused lists the template functions a render may not call: nondeterministic ones and getHostByName.
func refused() []string {
	return append(nondeterministic(), "getHostByName")
}

// refuseNondeterministic returns an error naming the first template file, in path order, that calls a refused
// function (random, clock or DNS), and the function.
func refuseNondeterministic(files map[string][]byte) error {
	names := make([]string, 0, len(files))
	for name := range files {
		if isTemplate(name) {
			names = append(names, name)
		}
	}
	sort.Strings(names)
	// Funcs are looked for only inside template actions, so prose in YAML is not refused.
	actionRE := regexp.MustCompile(`(?s)\{\{.*?\}\}`)
	funcs := refused()
	wordRE := regexp.MustCompile(`(^|[^A-Za-z0-9_.$])(` + strings.Join(funcs, "|") + `)([^A-Za-z0-9_]|$)`)
	for _, name := range names {
		for _, action := range actionRE.FindAll(files[name], -1) {
			if m := wordRE.FindSubmatch(action); m != nil {
				return fmt.Errorf("helm chart file %s calls %s, %s", name, m[2], refusedReason(string(m[2])))
			}
		}
	}
	return nil
}

// isTemplate tells whether a chart path is a template of the chart or of one of its subcharts.
func isTemplate(name string) bool {
	return strings.HasPrefix(name, "templates/") || strings.Contains(name, "/templates/")
}

// refusingFuncs replaces every refused function in the engine with one that fails, so that a call the file scan
// cannot see, from a string passed to tpl, still fails the render rather than changing its output.
func refusingFuncs() template.FuncMap {
	m := template.FuncMap{}
	for _, name := range refused() {
		m[name] = func(...any) (string, error) {
			return "", fmt.Errorf("template function %s is refused, %s", name, refusedReason(name))
		}
	}
	return m
}
