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
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/go-git/go-git/v5/storage/memory"
	. "github.com/onsi/gomega"
)

// gitWriteTree is the hash `git write-tree` gives a folder holding files (path → contents).
func gitWriteTree(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	run := func(args ...string) string {
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1")
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
		return strings.TrimSpace(string(out))
	}
	run("init", "-q")
	for p, c := range files {
		full := filepath.Join(dir, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(c), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	run("add", "-A")
	return run("write-tree")
}

// TestTreeEditGivesTheTreeGitWrites edits a tree folder by folder, as publish does, and checks each result
// against the tree `git write-tree` writes for the same files: entry order (a folder sorts as if its name
// ended in "/"), unchanged folders kept, emptied folders dropped, and whether each edit changed anything.
func TestTreeEditGivesTheTreeGitWrites(t *testing.T) {
	g := NewWithT(t)
	s := memory.NewStorage()
	blob := func(c string) plumbing.Hash {
		h, err := storeBlob(s, []byte(c))
		g.Expect(err).NotTo(HaveOccurred())
		return h
	}
	files := map[string]string{
		"a/" + ManifestFile: "a", "a-b/" + ManifestFile: "ab", "a.b/" + ManifestFile: "a.b", "a0": "file",
		"ab/" + ManifestFile: "ab2", "clusters/eu/one/" + ManifestFile: "one", "clusters/eu/two/" + ManifestFile: "two",
		"clusters/us/" + ManifestFile: "us", "README.md": "readme",
	}
	// Build the first tree from nothing.
	edit := editTree(nil)
	for _, p := range slices.Sorted(maps.Keys(files)) {
		changed, err := edit.put(p, &object.TreeEntry{Mode: filemode.Regular, Hash: blob(files[p])})
		g.Expect(err).NotTo(HaveOccurred())
		g.Expect(changed).To(BeTrue(), p)
	}
	root, _, err := edit.write(s, "")
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(root.String()).To(Equal(gitWriteTree(t, files)))

	steps := []struct {
		name    string
		apply   func(e *treeEdit) (bool, error)
		files   func()
		changed bool
	}{
		{"same manifest again", func(e *treeEdit) (bool, error) {
			return e.replaceDir(s, "clusters/eu/one", ManifestFile, blob("one"))
		}, func() {}, false},
		{"new manifest", func(e *treeEdit) (bool, error) {
			return e.replaceDir(s, "clusters/eu/one", ManifestFile, blob("one v2"))
		}, func() { files["clusters/eu/one/"+ManifestFile] = "one v2" }, true},
		{"new site in a new folder", func(e *treeEdit) (bool, error) {
			return e.replaceDir(s, "clusters/ap/three", ManifestFile, blob("three"))
		}, func() { files["clusters/ap/three/"+ManifestFile] = "three" }, true},
		{"a file where a site folder goes", func(e *treeEdit) (bool, error) {
			return e.replaceDir(s, "a0", ManifestFile, blob("a0"))
		}, func() { delete(files, "a0"); files["a0/"+ManifestFile] = "a0" }, true},
		{"last site of a folder removed", func(e *treeEdit) (bool, error) {
			return e.removeDir("clusters/us")
		}, func() { delete(files, "clusters/us/"+ManifestFile) }, true},
		{"every site under eu removed", func(e *treeEdit) (bool, error) {
			one, err := e.removeDir("clusters/eu/one")
			if err != nil {
				return false, err
			}
			two, err := e.removeDir("clusters/eu/two")
			return one && two, err
		}, func() {
			delete(files, "clusters/eu/one/"+ManifestFile)
			delete(files, "clusters/eu/two/"+ManifestFile)
		}, true},
		{"missing folder removed", func(e *treeEdit) (bool, error) { return e.removeDir("nowhere/site") }, func() {}, false},
	}
	for _, step := range steps {
		tree, err := object.GetTree(s, root)
		g.Expect(err).NotTo(HaveOccurred())
		e := editTree(newGitTree(s, tree))
		changed, err := step.apply(e)
		g.Expect(err).NotTo(HaveOccurred(), step.name)
		g.Expect(changed).To(Equal(step.changed), step.name)
		step.files()
		root, _, err = e.write(s, "")
		g.Expect(err).NotTo(HaveOccurred(), step.name)
		g.Expect(root.String()).To(Equal(gitWriteTree(t, files)), step.name)
	}
}
