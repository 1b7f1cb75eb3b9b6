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

// Package publish writes what a Sync publishes: the rendered commit over the target branch's tree (one
// folder per site, only the changed folders written again, each with its attestation when there is one), its
// message and trailers, and its OpenPGP signature.
package publish

import (
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/go-git/go-git/v5/plumbing/storer"
	"github.com/go-logr/logr"

	"github.com/siteops/siteops/gitops/internal/tree"
	"github.com/siteops/siteops/gitops/provenance"
)

// ManifestFile is the file holding a site's rendered objects under its path on the target branch.
const ManifestFile = "manifests.yaml"

// Commit trailers written on every rendered commit.
const (
	TrailerSourceRevision = "Siteops-Source-Revision"
	TrailerSites          = "Siteops-Sites"
	TrailerVersion        = "Siteops-Version"
)

// Commit trailers of a gated publish.
const (
	// TrailerRevertOf names the rendered commit whose output for a site a revert replaces.
	TrailerRevertOf = "Siteops-Revert-Of"
	// TrailerFreezeOverride carries the reason a publish went out during a freeze window.
	TrailerFreezeOverride = "Siteops-Freeze-Override"
)

// Trailer is a commit trailer line "Key: Value".
type Trailer struct{ Key, Value string }

// Target is the fetched head of the target branch (zero hash and nil tree when it does not exist yet).
type Target struct {
	Head  plumbing.Hash
	Tree  *object.Tree
	Files *tree.Git // Tree's folders, decoded once
}

// File is the output a Sync publishes for one site: a blob in the target's store, and the blob of its signed
// provenance (zero: none).
type File struct {
	Dir, Site   string
	Blob        plumbing.Hash
	Attestation plumbing.Hash
}

// Input is what a rendered commit writes, and how it is pushed.
type Input struct {
	Branch     string
	Author     object.Signature
	SourceRev  string
	Files      []File            // the manifests.yaml of the sites to publish (blobs in the cache), by folder
	Removed    map[string]string // site folder → name, of sites whose overlays are gone (removedSites)
	Signer     *SigningKey       // signs the commit when set
	BeforePush func(attempt int)
	Log        logr.Logger
	Restored   map[string]string // site → source revision, of sites whose files are earlier output written back
	Trailers   []Trailer         // extra trailers (a gate's revert and freeze override)
}

// Build writes the commit of in over st; a zero hash means nothing changed.
func Build(s storer.EncodedObjectStorer, st Target, in Input) (plumbing.Hash, []string, error) {
	edit := tree.NewEdit(st.Files)
	var changed []string
	for _, f := range in.Files {
		ok, err := edit.ReplaceDir(s, f.Dir, ManifestFile, f.Blob)
		if err != nil {
			return plumbing.ZeroHash, nil, err
		}
		attested, err := writeAttestation(edit, st.Files, f, ok)
		if err != nil {
			return plumbing.ZeroHash, nil, err
		}
		if ok || attested {
			changed = append(changed, f.Site)
		}
	}
	var removed []string
	for _, dir := range slices.Sorted(maps.Keys(in.Removed)) {
		ok, err := edit.RemoveDir(dir)
		if err != nil {
			return plumbing.ZeroHash, nil, err
		}
		if _, err := edit.RemoveDir(provenance.AttestationPath(in.Removed[dir])); err != nil {
			return plumbing.ZeroHash, nil, err
		}
		if ok {
			removed = append(removed, in.Removed[dir])
		}
	}
	if len(changed) == 0 && len(removed) == 0 {
		return plumbing.ZeroHash, nil, nil
	}
	sort.Strings(changed)
	sort.Strings(removed)
	treeHash, _, err := edit.Write(s, "")
	if err != nil {
		return plumbing.ZeroHash, nil, err
	}
	if st.Tree != nil && treeHash == st.Tree.Hash {
		return plumbing.ZeroHash, nil, nil
	}
	sig := in.Author
	sig.When = time.Now()
	commit := &object.Commit{
		Author: sig, Committer: sig, TreeHash: treeHash,
		Message: gatedMessage(in, changed, removed),
	}
	if !st.Head.IsZero() {
		commit.ParentHashes = []plumbing.Hash{st.Head}
	}
	if in.Signer != nil {
		if err := in.Signer.sign(commit); err != nil {
			return plumbing.ZeroHash, nil, err
		}
	}
	obj := s.NewEncodedObject()
	if err := commit.Encode(obj); err != nil {
		return plumbing.ZeroHash, nil, fmt.Errorf("encoding commit: %w", err)
	}
	h, err := s.SetEncodedObject(obj)
	if err != nil {
		return plumbing.ZeroHash, nil, fmt.Errorf("storing commit: %w", err)
	}
	return h, append(changed, removed...), nil
}

// writeAttestation writes f's attestation when its folder changed (folderChanged) or the site has none yet,
// and removes the site's attestation when its folder changed and f has none (it would not match). It reports
// whether it added an attestation to a folder that did not change.
func writeAttestation(edit *tree.Edit, t *tree.Git, f File, folderChanged bool) (bool, error) {
	p := provenance.AttestationPath(f.Site)
	if f.Attestation.IsZero() {
		if !folderChanged {
			return false, nil
		}
		_, err := edit.RemoveDir(p)
		return false, err
	}
	if !folderChanged && t != nil {
		if mode, _, err := t.Entry(p); err == nil && mode.IsFile() {
			return false, nil
		}
	}
	ok, err := edit.PutFile(p, f.Attestation)
	return ok && !folderChanged, err
}

// gatedMessage is the commit message of in: commitMessage, with the restored sites named apart and the
// gate's trailers added.
func gatedMessage(in Input, changed, removed []string) string {
	if len(in.Restored) == 0 && len(in.Trailers) == 0 {
		return commitMessage(in.SourceRev, changed, removed)
	}
	var rendered, restored []string
	for _, s := range changed {
		if _, ok := in.Restored[s]; ok {
			restored = append(restored, s)
		} else {
			rendered = append(rendered, s)
		}
	}
	msg := commitMessage(in.SourceRev, rendered, removed)
	if len(restored) > 0 {
		subject, rest, _ := strings.Cut(msg, "\n")
		if len(rendered) == 0 && len(removed) == 0 {
			subject = "siteops:"
		} else {
			subject += ";"
		}
		subject += revertWord + strings.Join(restored, ", ") + revertPhrase
		listed := append(slices.Clone(rendered), removed...)
		all := append(slices.Clone(listed), restored...)
		slices.Sort(listed)
		slices.Sort(all)
		msg = subject + "\n" + strings.Replace(rest, TrailerSites+": "+strings.Join(listed, ","),
			TrailerSites+": "+strings.Join(all, ","), 1)
	}
	var b strings.Builder
	b.WriteString(msg)
	for _, t := range in.Trailers {
		fmt.Fprintf(&b, "%s: %s\n", t.Key, strings.Join(strings.Fields(t.Value), " "))
	}
	return b.String()
}

// The words around the restored sites in a revert's subject: "…; revert a, b to the last healthy output".
const (
	revertWord   = " revert "
	revertPhrase = " to the last healthy output"
)

// RestoredSites reads from a rendered commit's message the sites a revert gave their last healthy output
// back, in the order the subject names them (sorted); nil for a commit that restores none.
func RestoredSites(msg string) []string {
	subject, _, _ := strings.Cut(msg, "\n")
	rest, ok := strings.CutSuffix(subject, revertPhrase)
	if !ok {
		return nil
	}
	i := strings.LastIndex(rest, revertWord)
	if i < 0 {
		return nil
	}
	return strings.Split(rest[i+len(revertWord):], ", ")
}
