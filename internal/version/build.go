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

package version

import "runtime/debug"

// Module is the Go module path of siteops.
const Module = "github.com/siteops/siteops"

// Build describes the binary that is running, as its provenance records it.
type Build struct {
	// Version is Version: the release, or "dev".
	Version string
	// ModuleVersion and ModuleSum are the main module's version and go.sum digest ("h1:…") as the Go
	// toolchain recorded them; a build from a checkout has "(devel)" and no sum.
	ModuleVersion, ModuleSum string
	// Revision is the VCS commit the binary was built from, when the toolchain recorded it.
	Revision string
}

// Current reads the Build of the running binary.
func Current() Build {
	b := Build{Version: Version}
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return b
	}
	b.ModuleVersion, b.ModuleSum = info.Main.Version, info.Main.Sum
	for _, s := range info.Settings {
		if s.Key == "vcs.revision" {
			b.Revision = s.Value
		}
	}
	return b
}
