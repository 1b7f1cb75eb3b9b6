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

package tree

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
)

// Disk is a FS over a folder on disk (a working copy, for the CLI). It never follows a symlink by
// itself: Resolve walks them one component at a time and refuses those leaving the root.
type Disk struct {
	root string
	// OnOpen, when set (tests), sees every absolute path the tree stats or reads.
	OnOpen func(abs string)
}

// NewDisk is a Disk over the folder root, made absolute and with the symlinks on the way to it resolved, so
// that only what lies below root is guarded.
func NewDisk(root string) (*Disk, error) {
	abs, err := filepath.Abs(root)
	if err != nil {
		return nil, fmt.Errorf("resolving %s: %w", root, err)
	}
	// The root itself may be reached through symlinks (e.g. /tmp on macOS); only what is below it is guarded.
	if realPath, err := filepath.EvalSymlinks(abs); err == nil {
		abs = realPath
	}
	return &Disk{root: abs}, nil
}

// Root is the folder on disk the tree is rooted at, with symlinks resolved.
func (d *Disk) Root() string { return d.root }

func (d *Disk) abs(p string) (string, error) {
	if EscapesRoot(CleanRel(p)) || filepath.IsAbs(p) {
		return "", fmt.Errorf("path %q leaves the checkout", p)
	}
	a := filepath.Join(d.root, filepath.FromSlash(p))
	if d.OnOpen != nil {
		d.OnOpen(a)
	}
	return a, nil
}

// Lstat describes p without following it; a missing path is Missing with a nil error.
func (d *Disk) Lstat(p string) (Entry, error) {
	a, err := d.abs(p)
	if err != nil {
		return Entry{}, err
	}
	fi, err := os.Lstat(a)
	if errors.Is(err, fs.ErrNotExist) {
		return Entry{Kind: Missing}, nil
	}
	if err != nil {
		return Entry{}, fmt.Errorf("looking up %q: %w", p, err)
	}
	switch {
	case fi.Mode()&fs.ModeSymlink != 0:
		target, err := os.Readlink(a)
		if err != nil {
			return Entry{}, fmt.Errorf("reading symlink %q: %w", p, err)
		}
		return Entry{Kind: Symlink, Target: filepath.ToSlash(target)}, nil
	case fi.IsDir():
		return Entry{Kind: Dir}, nil
	case fi.Mode().IsRegular():
		return Entry{Kind: File, Size: fi.Size()}, nil
	default:
		return Entry{Kind: Other}, nil
	}
}

// ReadFile returns the bytes of the file p. The operating system follows a symlink at p, so callers pass a
// path Resolve returned.
func (d *Disk) ReadFile(p string) ([]byte, error) {
	a, err := d.abs(p)
	if err != nil {
		return nil, err
	}
	b, err := os.ReadFile(a)
	if err != nil {
		return nil, fmt.Errorf("reading %q: %w", p, err)
	}
	return b, nil
}

// ReadDir lists the names in folder p, sorted. Like ReadFile, it is meant for a path Resolve returned.
func (d *Disk) ReadDir(p string) ([]string, error) {
	a, err := d.abs(p)
	if err != nil {
		return nil, err
	}
	des, err := os.ReadDir(a)
	if err != nil {
		return nil, fmt.Errorf("listing %q: %w", p, err)
	}
	names := make([]string, 0, len(des))
	for _, de := range des {
		names = append(names, de.Name())
	}
	sort.Strings(names)
	return names, nil
}
