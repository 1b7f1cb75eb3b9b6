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

// Package sitediff compares the rendered objects of every site at two revisions and prints the result for a
// terminal or a pull request comment.
package sitediff

import (
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"

	"github.com/pmezard/go-difflib/difflib"
	"sigs.k8s.io/kustomize/kyaml/kio"
)

// ObjectID identifies a rendered object: apiVersion, kind, namespace and name.
type ObjectID struct {
	APIVersion, Kind, Namespace, Name string
}

// String is "Kind namespace/name (apiVersion)", without the namespace for cluster-scoped objects.
func (id ObjectID) String() string {
	name := id.Name
	if id.Namespace != "" {
		name = id.Namespace + "/" + id.Name
	}
	return fmt.Sprintf("%s %s (%s)", id.Kind, name, id.APIVersion)
}

func (id ObjectID) less(o ObjectID) bool {
	a := []string{id.Kind, id.Namespace, id.Name, id.APIVersion}
	b := []string{o.Kind, o.Namespace, o.Name, o.APIVersion}
	for i := range a {
		if a[i] != b[i] {
			return a[i] < b[i]
		}
	}
	return false
}

// SiteOutput is one site's render at one revision: its YAML, or the error that stopped it. A site that does
// not exist at that revision has no SiteOutput.
type SiteOutput struct {
	YAML []byte
	Err  error
}

// ObjectChange is an object whose content differs between the revisions, with a unified diff of its YAML.
type ObjectChange struct {
	ID   ObjectID
	Diff string
}

// SiteDiff is what changes for one site between two revisions.
type SiteDiff struct {
	Site string
	// New and Gone say the site's overlay appears or disappears.
	New, Gone bool
	Added     []ObjectID
	Removed   []ObjectID
	Changed   []ObjectChange
	// Failed is the render error at base or head ("" when both rendered); the objects are then not compared.
	Failed string
}

// SitesDiff is the per-site effect of a change: the sites that change (or fail) and the ones that do not.
type SitesDiff struct {
	Base, Head string     // revisions, as the user named them
	Sites      []SiteDiff // sites that change or fail, sorted by name
	Unchanged  []string   // sites whose rendered objects are identical, sorted
}

// Changed reports whether any site changes or failed to render.
func (d SitesDiff) Changed() bool { return len(d.Sites) > 0 }

// Failed lists the sites that failed to render at either revision.
func (d SitesDiff) Failed() []string {
	var out []string
	for _, s := range d.Sites {
		if s.Failed != "" {
			out = append(out, s.Site)
		}
	}
	return out
}

// DiffSites compares every site's rendered objects at base and head (site name → output; a missing site does
// not exist at that revision). Objects are matched by ObjectID; an object is changed when its YAML differs.
func DiffSites(baseRev, headRev string, base, head map[string]SiteOutput) (SitesDiff, error) {
	out := SitesDiff{Base: baseRev, Head: headRev}
	names := map[string]bool{}
	for n := range base {
		names[n] = true
	}
	for n := range head {
		names[n] = true
	}
	for _, name := range slices.Sorted(maps.Keys(names)) {
		b, inBase := base[name]
		h, inHead := head[name]
		sd := SiteDiff{Site: name, New: !inBase, Gone: !inHead}
		switch {
		case inBase && b.Err != nil:
			sd.Failed = fmt.Sprintf("at %s: %v", baseRev, b.Err)
		case inHead && h.Err != nil:
			sd.Failed = fmt.Sprintf("at %s: %v", headRev, h.Err)
		}
		if sd.Failed != "" {
			out.Sites = append(out.Sites, sd)
			continue
		}
		bo, err := splitObjects(b.YAML)
		if err != nil {
			return out, fmt.Errorf("site %s at %s: %w", name, baseRev, err)
		}
		ho, err := splitObjects(h.YAML)
		if err != nil {
			return out, fmt.Errorf("site %s at %s: %w", name, headRev, err)
		}
		compareObjects(&sd, bo, ho, baseRev, headRev)
		if sd.New || sd.Gone || len(sd.Added)+len(sd.Removed)+len(sd.Changed) > 0 {
			out.Sites = append(out.Sites, sd)
		} else {
			out.Unchanged = append(out.Unchanged, name)
		}
	}
	return out, nil
}

// compareObjects fills the added, removed and changed objects of sd.
func compareObjects(sd *SiteDiff, base, head map[ObjectID]string, baseRev, headRev string) {
	for id, hy := range head {
		by, ok := base[id]
		switch {
		case !ok:
			sd.Added = append(sd.Added, id)
		case by != hy:
			sd.Changed = append(sd.Changed, ObjectChange{ID: id, Diff: unifiedDiff(by, hy, baseRev, headRev)})
		}
	}
	for id := range base {
		if _, ok := head[id]; !ok {
			sd.Removed = append(sd.Removed, id)
		}
	}
	sortIDs(sd.Added)
	sortIDs(sd.Removed)
	sort.Slice(sd.Changed, func(i, j int) bool { return sd.Changed[i].ID.less(sd.Changed[j].ID) })
}

// splitObjects parses a multi-document YAML stream into objects by identity. Two documents with the same
// identity (kustomize never writes them) are kept together, so a change to either shows.
func splitObjects(stream []byte) (map[ObjectID]string, error) {
	out := map[ObjectID]string{}
	if len(strings.TrimSpace(string(stream))) == 0 {
		return out, nil
	}
	nodes, err := kio.FromBytes(stream)
	if err != nil {
		return nil, fmt.Errorf("parsing the rendered YAML: %w", err)
	}
	for _, n := range nodes {
		s, err := n.String()
		if err != nil {
			return nil, fmt.Errorf("printing an object: %w", err)
		}
		id := ObjectID{APIVersion: n.GetApiVersion(), Kind: n.GetKind(), Namespace: n.GetNamespace(), Name: n.GetName()}
		out[id] += s
	}
	return out, nil
}

func unifiedDiff(a, b, aName, bName string) string {
	text, err := difflib.GetUnifiedDiffString(difflib.UnifiedDiff{
		// SplitLines adds an empty last line to text that ends in a newline: trim it first.
		A:        difflib.SplitLines(strings.TrimSuffix(a, "\n")),
		B:        difflib.SplitLines(strings.TrimSuffix(b, "\n")),
		FromFile: aName, ToFile: bName, Context: 3,
	})
	if err != nil {
		return fmt.Sprintf("(no diff: %v)\n", err)
	}
	return text
}

func sortIDs(ids []ObjectID) { sort.Slice(ids, func(i, j int) bool { return ids[i].less(ids[j]) }) }
