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

package provenance

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"path"
	"slices"
	"strings"

	"github.com/siteops/siteops/gitops/internal/tree"
)

// AttestationDir is the folder of the rendered branch that holds the sites' attestations. Argo CD's Git
// directory generator skips folders whose name starts with a dot, so no Application is made of it.
const AttestationDir = ".siteops/attestations"

// AttestationPath is where the rendered branch holds the DSSE envelope of site's statement.
func AttestationPath(site string) string { return AttestationDir + "/" + site + ".intoto.json" }

// ErrNoAttestation is the error of a site that has no attestation in the commit.
var ErrNoAttestation = errors.New("no attestation")

// ErrOutputChanged is the error of a site whose folder is not the output its statement names.
var ErrOutputChanged = errors.New("the site's folder is not the output siteops attested")

// Verified is what Verify found: the statement, and the site's folder as the statement names it.
type Verified struct {
	Statement Statement
	Folder    string
}

// Verify checks site's attestation in t (a rendered commit's tree): the envelope's signature with key, that
// the statement is of site, and that the files of the site's folder are exactly the statement's subjects. The
// errors wrap ErrNoAttestation, ErrBadSignature or ErrOutputChanged, and name the files that differ.
func Verify(ctx context.Context, t tree.FS, site string, key *PublicKey) (Verified, error) {
	p := AttestationPath(site)
	e, err := t.Lstat(p)
	if err != nil {
		return Verified{}, err
	}
	if e.Kind != tree.File {
		return Verified{}, fmt.Errorf("%w for site %s: %s is missing", ErrNoAttestation, site, p)
	}
	data, err := t.ReadFile(p)
	if err != nil {
		return Verified{}, err
	}
	st, err := Open(ctx, data, key)
	if err != nil {
		return Verified{}, fmt.Errorf("%s: %w", p, err)
	}
	if got := st.Predicate.BuildDefinition.ExternalParameters.Site; got != site {
		return Verified{}, fmt.Errorf("%s: the statement is of site %q, not %q", p, got, site)
	}
	folder, err := subjectsFolder(st.Subject)
	if err != nil {
		return Verified{}, fmt.Errorf("%s: %w", p, err)
	}
	files, err := readFolder(t, folder)
	if err != nil {
		return Verified{}, err
	}
	if diff := compare(st.Subject, Subjects(folder, files)); len(diff) > 0 {
		return Verified{}, fmt.Errorf("%w: %s", ErrOutputChanged, strings.Join(diff, "; "))
	}
	return Verified{Statement: st, Folder: folder}, nil
}

// subjectsFolder is the one folder that holds every subject.
func subjectsFolder(subjects []ResourceDescriptor) (string, error) {
	if len(subjects) == 0 {
		return "", errors.New("the statement has no subject")
	}
	folder := path.Dir(subjects[0].Name)
	for _, s := range subjects {
		if path.Dir(s.Name) != folder || tree.EscapesRoot(s.Name) || folder == "." {
			return "", fmt.Errorf("subject %q is not a file of the site's folder %q", s.Name, folder)
		}
	}
	return folder, nil
}

// readFolder reads the files under folder of t (relative path → bytes); a symlink or submodule is read as
// its stored form, so it never matches a subject.
func readFolder(t tree.FS, folder string) (map[string][]byte, error) {
	out := map[string][]byte{}
	var walk func(rel string) error
	walk = func(rel string) error {
		p := path.Join(folder, rel)
		e, err := t.Lstat(p)
		if err != nil {
			return err
		}
		switch e.Kind {
		case tree.Missing:
			return nil
		case tree.Dir:
			names, err := t.ReadDir(p)
			if err != nil {
				return err
			}
			for _, n := range names {
				if err := walk(path.Join(rel, n)); err != nil {
					return err
				}
			}
			return nil
		case tree.File:
			b, err := t.ReadFile(p)
			out[rel] = b
			return err
		default:
			out[rel] = []byte("(not a regular file) " + e.Target)
			return nil
		}
	}
	return out, walk("")
}

// compare lists how got differs from want, by file.
func compare(want, got []ResourceDescriptor) []string {
	w, g := digests(want), digests(got)
	var out []string
	for _, name := range slices.Sorted(maps.Keys(w)) {
		switch d, ok := g[name]; {
		case !ok:
			out = append(out, name+" is missing")
		case d != w[name]:
			out = append(out, name+" was changed (sha256 "+short(d)+", attested "+short(w[name])+")")
		}
	}
	for _, name := range slices.Sorted(maps.Keys(g)) {
		if _, ok := w[name]; !ok {
			out = append(out, name+" was added")
		}
	}
	return out
}

func digests(ds []ResourceDescriptor) map[string]string {
	out := make(map[string]string, len(ds))
	for _, d := range ds {
		out[d.Name] = d.Digest["sha256"]
	}
	return out
}

func short(h string) string {
	if len(h) > 12 {
		return h[:12]
	}
	return h
}
