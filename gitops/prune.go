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

package gitops

import (
	"maps"
	"path"
	"slices"
	"strings"

	"github.com/siteops/siteops/gitops/internal/tree"
)

// removedSites returns the target folders of the sites a previous Sync rendered whose overlay folders are gone
// from the source tree t (folder → site), so the rendered branch stops carrying their manifests, as Flux and
// Argo CD prune what left Git. A folder that is still there (say, its kustomization.yaml was deleted) is a
// broken site, not a removed one: its last output stays. It removes nothing when no site is left at all (a
// push that deleted every overlay is more likely a mistake than a decommission), and never a folder that is,
// holds or sits inside a current site's folder.
func removedSites(t tree.FS, o SyncOptions, p *sitePlan) map[string]string {
	if len(p.byName) == 0 {
		return nil
	}
	paths := p.paths()
	out := map[string]string{}
	for _, name := range slices.Sorted(maps.Keys(o.Previous)) {
		if _, still := p.byName[name]; still || o.Previous[name].LastRenderedRevision == "" {
			continue
		}
		if _, e, err := tree.Resolve(t, path.Join(tree.CleanRel(o.OverlaysDir), name)); err != nil || e.Kind != tree.Missing {
			continue
		}
		dir, err := SitePath(o.Target.PathTemplate, name)
		if err != nil || overlapsAny(dir, paths) {
			continue
		}
		out[dir] = name
	}
	return out
}

// overlapsAny reports whether dir is, holds or sits inside one of the folders in paths.
func overlapsAny(dir string, paths map[string]string) bool {
	for _, p := range paths {
		if p == dir || strings.HasPrefix(p, dir+"/") || strings.HasPrefix(dir, p+"/") {
			return true
		}
	}
	return false
}
