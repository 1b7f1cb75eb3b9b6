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

// Package version holds the siteops version of this build. The linker sets it (make build: -X
// github.com/siteops/siteops/internal/version.Version=...); the manager and the CLI print it and every rendered
// commit carries it in its Siteops-Version trailer.
package version

// Version is the siteops version of this build; "dev" when built without the Makefile's ldflags.
var Version = "dev"
