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
	"fmt"
	"path"
	"regexp"
	"strings"

	"github.com/siteops/siteops/gitops/internal/permanent"
	"github.com/siteops/siteops/gitops/internal/tree"
)

var siteNameRE = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]{0,252}$`)

// ValidateSiteName refuses names that could leave the overlays folder or the target path: a site name is one
// path segment of letters, digits, '.', '_' and '-', not starting with '.' and never "..".
func ValidateSiteName(name string) error {
	if name == "" {
		return fmt.Errorf("site name is empty")
	}
	if strings.Contains(name, "..") || strings.ContainsAny(name, `/\`) || !siteNameRE.MatchString(name) {
		return fmt.Errorf("invalid site name %q: use one path segment of letters, digits, '.', '_' and '-'", name)
	}
	return nil
}

// DiscoverSites lists the folders directly under overlaysDir that hold a kustomization, sorted. Hidden folders,
// a folder named base and names that are not valid site names are skipped. A missing overlays folder is a
// permanent error.
func DiscoverSites(t tree.FS, overlaysDir string) ([]string, error) {
	dir := tree.CleanRel(overlaysDir)
	if tree.EscapesRoot(dir) {
		return nil, permanent.Error(fmt.Errorf("overlays folder %q leaves the checkout", overlaysDir))
	}
	realPath, e, err := tree.Resolve(t, dir)
	if err != nil {
		return nil, permanent.Error(fmt.Errorf("overlays folder %q: %w", overlaysDir, err))
	}
	if e.Kind != tree.Dir {
		return nil, permanent.Error(fmt.Errorf("overlays folder %q not found in the source", overlaysDir))
	}
	names, err := t.ReadDir(realPath)
	if err != nil {
		return nil, err
	}
	var sites []string
	for _, name := range names {
		// base is the group's own kustomization in Decapod's layout (<group>/base beside <group>/<site>).
		if strings.HasPrefix(name, ".") || name == "base" || ValidateSiteName(name) != nil {
			continue
		}
		siteDir := path.Join(dir, name)
		_, se, err := tree.Resolve(t, siteDir)
		if err != nil {
			sites = append(sites, name) // e.g. a symlink leaving the checkout: the walk reports it
			continue
		}
		if se.Kind != tree.Dir {
			continue
		}
		for _, k := range kustomizationFileNames() {
			if _, ke, err := tree.Resolve(t, path.Join(siteDir, k)); err == nil && ke.Kind != tree.Missing {
				sites = append(sites, name)
				break
			}
		}
	}
	return sites, nil
}
