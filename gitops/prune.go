package gitops

import (
	"maps"
	"path"
	"slices"
	"strings"
)

// removedSites returns the target folders of the sites a previous Sync rendered whose overlay folders are gone
// from the source tree t (folder → site), so the rendered branch stops carrying their manifests, as Flux and
// Argo CD prune what left Git. A folder that is still there (say, its kustomization.yaml was deleted) is a
// broken site, not a removed one: its last output stays. It removes nothing when no site is left at all (a
// push that deleted every overlay is more likely a mistake than a decommission), and never a folder that is,
// holds or sits inside a current site's folder.
func removedSites(t fileTree, o SyncOptions, p *sitePlan) map[string]string {
	if len(p.states) == 0 {
		return nil
	}
	out := map[string]string{}
	for _, name := range slices.Sorted(maps.Keys(o.Previous)) {
		if _, still := p.states[name]; still || o.Previous[name].LastRenderedRevision == "" {
			continue
		}
		if _, e, err := resolve(t, path.Join(cleanRel(o.OverlaysDir), name)); err != nil || e.kind != kindMissing {
			continue
		}
		dir, err := SitePath(o.Target.PathTemplate, name)
		if err != nil || overlapsAny(dir, p.paths) {
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
