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
	"slices"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"

	"github.com/siteops/siteops/gitops/internal/tree"
)

// siteDeps is what a remembered guard result depends on, split so that checking an unchanged site costs
// two lookups whatever the size of its graph: the tree hash of its overlay folder, which covers every entry
// the walk read inside it, and the entries it read outside (its bases), a set shared by the sites that read
// the same ones and checked once per Sync.
type siteDeps struct {
	dir     string
	dirHash plumbing.Hash // the overlay folder's tree; zero when it was no folder (every entry is outside)
	outside *depSet
}

// depSet is a set of entries read by guard walks, and whether the last Sync that checked it found them
// unchanged.
type depSet struct {
	key       string
	deps      map[string]treeDep
	checkedIn uint64 // generation of the check (guardMemos.generation)
	same      bool
}

// depSets interns the depSets of one guardMemo by their key.
type depSets map[string]*depSet

// splitDeps turns what a walk of site folder dir read in t into siteDeps, sharing the outside set with
// earlier sites that read the same entries (in sets, or else in prev).
func splitDeps(t *tree.Git, dir string, deps map[string]treeDep, sets, prev depSets) (siteDeps, error) {
	mode, hash, err := t.Entry(dir)
	if err != nil {
		return siteDeps{}, err
	}
	sd := siteDeps{dir: dir}
	outside := deps
	if mode == filemode.Dir {
		sd.dirHash = hash
		outside = make(map[string]treeDep, len(deps))
		for p, d := range deps {
			if p != dir && !strings.HasPrefix(p, dir+"/") {
				outside[p] = d
			}
		}
	}
	key := depKey(outside)
	s, ok := sets[key]
	if !ok {
		if s, ok = prev[key]; !ok {
			s = &depSet{key: key, deps: outside}
		}
		sets[key] = s
	}
	sd.outside = s
	return sd, nil
}

// depKey names a set of entries: equal sets, equal keys.
func depKey(deps map[string]treeDep) string {
	var b strings.Builder
	for _, p := range slices.Sorted(maps.Keys(deps)) {
		d := deps[p]
		b.WriteString(p)
		b.WriteByte(0)
		b.WriteString(d.mode.String())
		b.WriteByte(0)
		b.WriteString(d.hash.String())
		if d.kindOnly {
			b.WriteString(" kind")
		}
		b.WriteByte('\n')
	}
	return b.String()
}

// unchanged reports whether the site's dependencies are the same in t; gen is the caller's generation.
func (sd siteDeps) unchanged(t *tree.Git, gen uint64) (bool, error) {
	if !sd.dirHash.IsZero() {
		mode, hash, err := t.Entry(sd.dir)
		if err != nil || mode != filemode.Dir || hash != sd.dirHash {
			return false, err
		}
	}
	s := sd.outside
	if s.checkedIn != gen {
		same, err := unchanged(t, s.deps)
		if err != nil {
			return false, err
		}
		s.checkedIn, s.same = gen, same
	}
	return s.same, nil
}

// unchanged reports whether every dependency is the same in t.
func unchanged(t *tree.Git, deps map[string]treeDep) (bool, error) {
	for p, d := range deps {
		mode, hash, err := t.Entry(p)
		if err != nil {
			return false, err
		}
		if mode != d.mode || (!d.kindOnly && hash != d.hash) {
			return false, nil
		}
	}
	return true, nil
}
