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

// Package guard checks, before anything is built, every file a site's kustomization reaches: no remote
// bases, no paths or symlinks leaving the checkout, no exec or container functions, Helm charts only from folders
// of the checkout (and none with a symlink), bounded sizes.
// It reads only the checkout it is given (a tree.FS) and never reaches the network.
package guard

import (
	"errors"
	"fmt"
	"path"
	"strings"

	"github.com/siteops/siteops/gitops/internal/tree"
)

// Limits the guard enforces on what a site may reach.
const (
	// MaxFileSize is the largest file a kustomization may reach.
	MaxFileSize = 10 << 20
	// maxTotalSize bounds the bytes one site reaches.
	maxTotalSize = 64 << 20
	// maxFiles bounds the files one site reaches.
	maxFiles = 10000
	// digestSalt versions the input digest: bump it when the rendering changes so every site re-renders.
	digestSalt = "siteops-render-v1"
)

// kustomizationFileNames are the names kustomize recognizes, in its order.
func kustomizationFileNames() []string {
	return []string{"kustomization.yaml", "kustomization.yml", "Kustomization"}
}

// Inputs is the guarded file set of one kustomization graph. The file bytes may be shared with other sites'
// Inputs: nobody writes to them.
type Inputs struct {
	// Files maps logical paths (as kustomize will open them) to their bytes.
	Files map[string][]byte
	// KustFiles are the logical paths of the kustomization files, in walk order.
	KustFiles []string
	// Warnings report deprecated fields, per file.
	Warnings []string
	// OpenAPI is set when the root kustomization sets `openapi` (a kustomize global the render stage guards).
	OpenAPI bool
	// Charts are the helmCharts entries of the graph, in walk order.
	Charts []Chart
	// ReleaseCharts are the vendored charts the site's HelmReleases may name, by name and folder.
	ReleaseCharts []ReleaseChart
	// Digest covers the path and bytes of every file, and the render version.
	Digest string
	// reached holds every real path the graph depends on (files, symlinks, kustomization names looked up).
	reached map[string]struct{}
	// reachedDirs are folders the graph depends on as a whole (charts): any path below them is reached.
	reachedDirs map[string]struct{}
	// yamlFiles are the logical paths of the files kustomize loads as YAML, in walk order (CheckYAML).
	yamlFiles []string
}

// Refusal is a refusal of the guard: a site failure, not an error of Sync.
type Refusal struct{ msg string }

func (e *Refusal) Error() string { return e.msg }

// walker walks a kustomization graph through a FS, refusing anything that leaves the checkout.
type walker struct {
	t            tree.FS
	readContents bool
	in           *Inputs
	total        int64
	stack        []string        // real folders being walked (cycle detection)
	stackNames   []string        // their logical names, for messages
	stackNS      []string        // their namespace fields, for the charts' inherited namespace
	done         map[string]bool // logical folders already walked
	yamlSeen     map[string]bool // Inputs.yamlFiles, as a set
}

// Site walks the kustomization in folder dir (logical, relative to the root) and everything it reaches,
// reading every file, and returns what the site's build may read. A refusal is a *Refusal; with it, the
// Inputs (when not nil) hold what the walk reached before.
func Site(t tree.FS, dir string) (*Inputs, error) {
	in, err := guardSite(t, dir, true)
	if in != nil {
		in.reached, in.reachedDirs = nil, nil // only AffectedSites reads them, from its own walk
	}
	return in, err
}

// guardSite walks the kustomization in folder dir (logical, relative to the root) and everything it reaches.
// With readContents false only kustomization files are read (enough for AffectedSites); no digest is made.
func guardSite(t tree.FS, dir string, readContents bool) (*Inputs, error) {
	w := &walker{
		t: tree.Cached(t), readContents: readContents, done: map[string]bool{}, yamlSeen: map[string]bool{},
		in: &Inputs{Files: map[string][]byte{}, reached: map[string]struct{}{}, reachedDirs: map[string]struct{}{}},
	}
	dir = tree.CleanRel(dir)
	if tree.EscapesRoot(dir) {
		return nil, &Refusal{msg: fmt.Sprintf("%q leaves the checkout", dir)}
	}
	if err := w.walkKustomization(dir, "", true); err != nil {
		return w.in, err
	}
	if err := w.followReleaseCharts(); err != nil {
		return w.in, err
	}
	if readContents {
		w.in.Digest = digestFiles(w.in.Files)
	}
	return w.in, nil
}

func (w *walker) refuse(format string, args ...any) error {
	return &Refusal{msg: fmt.Sprintf(format, args...)}
}

// walkKustomization walks the kustomization folder dir; from names the referring field for messages.
func (w *walker) walkKustomization(dir, from string, root bool) error {
	realPath, e, err := tree.Resolve(w.t, dir)
	if err != nil {
		return w.refuse("%s%v", from, err)
	}
	if e.Kind == tree.Missing {
		return w.refuse("%sfolder %q not found in the checkout", from, dir)
	}
	if e.Kind != tree.Dir {
		return w.refuse("%s%q is not a folder", from, dir)
	}
	for i, r := range w.stack {
		if r == realPath {
			chain := append(append([]string{}, w.stackNames[i:]...), DisplayDir(dir))
			return w.refuse("%skustomization cycle: %s", from, strings.Join(chain, " -> "))
		}
	}
	if w.done[dir] {
		return nil
	}
	w.done[dir] = true
	w.stack, w.stackNames = append(w.stack, realPath), append(w.stackNames, DisplayDir(dir))
	defer func() { w.stack, w.stackNames = w.stack[:len(w.stack)-1], w.stackNames[:len(w.stack)-1] }()
	w.stackNS = append(w.stackNS, "")
	defer func() { w.stackNS = w.stackNS[:len(w.stackNS)-1] }()

	kf, err := w.findKustomizationFile(dir, realPath, from)
	if err != nil {
		return err
	}
	content, err := w.addFile(kf, "", true)
	if err != nil {
		return err
	}
	w.in.KustFiles = append(w.in.KustFiles, kf)
	k, err := parseKustomization(content)
	if yerr := (*YAMLError)(nil); errors.As(err, &yerr) {
		return w.refuse("%v", &YAMLError{Path: kf, Line: yerr.Line, Msg: yerr.Msg})
	}
	if err != nil {
		return w.refuse("%s: %v", kf, err)
	}
	if root {
		w.in.OpenAPI = k.openAPI
	}
	for _, f := range k.deprecated {
		w.in.Warnings = append(w.in.Warnings,
			fmt.Sprintf("%s: %q is deprecated, use %q instead", kf, f, deprecatedFieldReplacement(f)))
	}
	w.stackNS[len(w.stackNS)-1] = k.namespace
	for _, ref := range k.refs {
		if err := w.followRef(dir, kf, ref); err != nil {
			return err
		}
	}
	for i, c := range k.charts {
		if err := w.followChart(dir, kf, k.chartHome, i, c, w.inheritedNamespace()); err != nil {
			return err
		}
	}
	return nil
}

// inheritedNamespace is the namespace field of the kustomization being walked or, when it has none, of the
// nearest kustomization that includes it.
func (w *walker) inheritedNamespace() string {
	for i := len(w.stackNS) - 1; i >= 0; i-- {
		if w.stackNS[i] != "" {
			return w.stackNS[i]
		}
	}
	return ""
}

func (w *walker) findKustomizationFile(dir, realPath, from string) (string, error) {
	var found []string
	for _, name := range kustomizationFileNames() {
		w.in.reached[path.Join(realPath, name)] = struct{}{}
		_, e, err := tree.Resolve(w.t, path.Join(dir, name))
		if err != nil {
			return "", w.refuse("%s%v", from, err)
		}
		if e.Kind != tree.Missing {
			found = append(found, path.Join(dir, name))
		}
	}
	switch len(found) {
	case 0:
		return "", w.refuse("%sno kustomization file (kustomization.yaml) in %q", from, DisplayDir(dir))
	case 1:
		return found[0], nil
	default:
		return "", w.refuse("%sfound several kustomization files in %q: %s", from, DisplayDir(dir), strings.Join(found, ", "))
	}
}

// followRef checks and follows one reference of kustomization file kf in folder dir.
func (w *walker) followRef(dir, kf string, ref kustRef) error {
	at := fmt.Sprintf("%s: %s %q: ", kf, ref.field, abbreviate(ref.value))
	if reason := refReason(ref.value, ref.kind == refInline); reason != "" {
		return w.refuse("%s%s", at, reason)
	}
	if ref.kind == refInline {
		if ref.config {
			if reason := configReason([]byte(ref.value)); reason != "" {
				return w.refuse("%s%s", at, reason)
			}
		}
		return nil
	}
	target := tree.CleanRel(path.Join(dir, ref.value))
	if tree.EscapesRoot(target) {
		return w.refuse("%sthe path leaves the checkout", at)
	}
	realPath, e, err := tree.Resolve(w.t, target)
	if err != nil {
		return w.refuse("%s%v", at, err)
	}
	switch {
	case e.Kind == tree.Missing:
		return w.refuse("%snot found in the checkout", at)
	case e.Kind == tree.Dir && ref.kind == refFileOrDir:
		return w.walkKustomization(target, at, false)
	case e.Kind == tree.Dir:
		return w.refuse("%sis a folder, a file is expected", at)
	}
	w.in.reached[realPath] = struct{}{}
	content, err := w.addFile(target, at, false)
	if err != nil {
		return err
	}
	if content != nil {
		if reason := configReason(content); reason != "" {
			return w.refuse("%s%s", at, reason)
		}
	}
	if !ref.notYAML && !w.yamlSeen[target] { // also without contents: releaseChartNames reads them then
		w.yamlSeen[target] = true
		w.in.yamlFiles = append(w.in.yamlFiles, target)
	}
	return nil
}

// addFile records the regular file at logical path p, reading it when needed; at prefixes messages.
func (w *walker) addFile(p, at string, always bool) ([]byte, error) {
	realPath, e, err := tree.Resolve(w.t, p)
	if err != nil {
		return nil, w.refuse("%s%v", at, err)
	}
	switch e.Kind {
	case tree.Missing:
		return nil, w.refuse("%s%q not found in the checkout", at, p)
	case tree.File:
	default:
		return nil, w.refuse("%s%q is not a regular file", at, p)
	}
	if e.Size > MaxFileSize {
		return nil, w.refuse("%s%q is %d bytes, over the %d-byte limit", at, p, e.Size, MaxFileSize)
	}
	w.in.reached[realPath] = struct{}{}
	// The logical path and its folders: a changed symlink on the way shows up as one of them.
	for q := p; q != "" && q != "."; q = path.Dir(q) {
		w.in.reached[q] = struct{}{}
	}
	if _, seen := w.in.Files[p]; seen {
		return w.in.Files[p], nil
	}
	if len(w.in.Files) >= maxFiles {
		return nil, w.refuse("%sthe site reaches more than %d files", at, maxFiles)
	}
	w.total += e.Size
	if w.total > maxTotalSize {
		return nil, w.refuse("%sthe site reaches more than %d bytes", at, maxTotalSize)
	}
	if !w.readContents && !always {
		w.in.Files[p] = nil
		return nil, nil
	}
	b, err := w.t.ReadFile(realPath)
	if err != nil {
		return nil, fmt.Errorf("%s%w", at, err)
	}
	w.in.Files[p] = b
	return b, nil
}
