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

package testenv

import (
	"os"
	"path/filepath"
)

// Cache is the folder hack/versions.sh names SITEOPS_CACHE, where hack/ builds the local fleet's binaries and
// keeps local clusters' state: $SITEOPS_CACHE, else $XDG_CACHE_HOME/siteops, else ~/.cache/siteops.
func Cache() string {
	if d := os.Getenv("SITEOPS_CACHE"); d != "" {
		return d
	}
	if d := os.Getenv("XDG_CACHE_HOME"); d != "" {
		return filepath.Join(d, "siteops")
	}
	home, _ := os.UserHomeDir()
	return filepath.Join(home, ".cache", "siteops")
}
