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

package main

import (
	"flag"
	"fmt"
)

// renamedFlags maps each flag's old name, kept as a deprecated alias, to its current name. Standby mode was once
// called shadow mode.
func renamedFlags() map[string]string {
	return map[string]string{
		"shadow":              "standby",
		"shadow-interval":     "standby-interval",
		"shadow-bind-address": "standby-bind-address",
		"shadow-secure":       "standby-secure",
	}
}

// deprecatedAliases defines each old name of renamed as another name of its current flag, which fs must define
// already: both set the same value, and the later one on the command line wins.
func deprecatedAliases(fs *flag.FlagSet, renamed map[string]string) {
	for old, current := range renamed {
		fs.Var(fs.Lookup(current).Value, old, "Deprecated: use --"+current+".")
	}
}

// deprecatedUsed returns a warning for each old name of renamed that fs's command line set, in name order.
func deprecatedUsed(fs *flag.FlagSet, renamed map[string]string) []string {
	var used []string
	fs.Visit(func(f *flag.Flag) {
		if current, ok := renamed[f.Name]; ok {
			used = append(used, fmt.Sprintf("flag --%s is deprecated: use --%s", f.Name, current))
		}
	})
	return used
}
