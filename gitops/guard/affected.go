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
	"path"
	"sort"

	"github.com/siteops/siteops/gitops/internal/tree"
)

// AffectedSites returns, sorted, the sites whose kustomization graph reaches one of the changed paths (repo
// paths, as a diff lists them). A site whose graph cannot be walked is affected when a changed path is in
// what it reached before failing or under its overlay folder.
func AffectedSites(t tree.FS, overlaysDir string, sites, changed []string) ([]string, error) {
	if len(changed) == 0 {
		return nil, nil
	}
	t = tree.Cached(t) // sites share their bases
	var out []string
	for _, site := range sites {
		dir := path.Join(tree.CleanRel(overlaysDir), site)
		in, err := guardSite(t, dir, false)
		var g *Refusal
		if err != nil && !errors.As(err, &g) {
			return nil, fmt.Errorf("walking site %s: %w", site, err)
		}
		if reachesAny(in, dir, err != nil, changed) {
			out = append(out, site)
		}
	}
	sort.Strings(out)
	return out, nil
}

func reachesAny(in *Inputs, dir string, failed bool, changed []string) bool {
	for _, c := range changed {
		if in != nil {
			if _, ok := in.reached[c]; ok {
				return true
			}
			for d := path.Dir(c); d != "." && d != "/"; d = path.Dir(d) {
				if _, ok := in.reachedDirs[d]; ok {
					return true
				}
			}
		}
		if failed && (c == dir || len(c) > len(dir) && c[:len(dir)+1] == dir+"/") {
			return true
		}
	}
	return false
}
