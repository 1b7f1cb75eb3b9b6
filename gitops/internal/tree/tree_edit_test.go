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
// manifestFile is the file a site folder holds on the rendered branch.
const manifestFile = "manifests.yaml"

func TestTreeEditGivesTheTreeGitWrites(t *testing.T) {
	g := NewWithT(t)
	s := memory.NewStorage()
	blob := func(c string) plumbing.Hash {
		h, err := StoreBlob(s, []byte(c))
		g.Expect(err).NotTo(HaveOccurred())
		return h
	}
	files := map[string]string{
		"a/" + manifestFile: "a", "a-b/" + manifestFile: "ab", "a.b/" + manifestFile: "a.b", "a0": "file",
		"ab/" + manifestFile: "ab2", "clusters/eu/one/" + manifestFile: "one", "clusters/eu/two/" + manifestFile: "two",
		"clusters/us/" + manifestFile: "us", "README.md": "readme",
	}
	// Build the first tree from nothing.
	edit := NewEdit(nil)
	for _, p := range slices.Sorted(maps.Keys(files)) {
		changed, err := edit.put(p, &object.TreeEntry{Mode: filemode.Regular, Hash: blob(files[p])})
		g.Expect(err).NotTo(HaveOccurred())
		g.Expect(changed).To(BeTrue(), p)
	}
	root, _, err := edit.Write(s, "")
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(root.String()).To(Equal(gitWriteTree(t, files)))

	steps := []struct {
		name    string
		apply   func(e *Edit) (bool, error)
		files   func()
		changed bool
	}{
		{"same manifest again", func(e *Edit) (bool, error) {
			return e.ReplaceDir(s, "clusters/eu/one", manifestFile, blob("one"))
		}, func() {}, false},
		{"new manifest", func(e *Edit) (bool, error) {
			return e.ReplaceDir(s, "clusters/eu/one", manifestFile, blob("one v2"))
		}, func() { files["clusters/eu/one/"+manifestFile] = "one v2" }, true},
		{"new site in a new folder", func(e *Edit) (bool, error) {
			return e.ReplaceDir(s, "clusters/ap/three", manifestFile, blob("three"))
		}, func() { files["clusters/ap/three/"+manifestFile] = "three" }, true},
		{"a file where a site folder goes", func(e *Edit) (bool, error) {
			return e.ReplaceDir(s, "a0", manifestFile, blob("a0"))
		}, func() { delete(files, "a0"); files["a0/"+manifestFile] = "a0" }, true},
		{"last site of a folder removed", func(e *Edit) (bool, error) {
			return e.RemoveDir("clusters/us")
		}, func() { delete(files, "clusters/us/"+manifestFile) }, true},
		{"every site under eu removed", func(e *Edit) (bool, error) {
			one, err := e.RemoveDir("clusters/eu/one")
			if err != nil {
				return false, err
			}
			two, err := e.RemoveDir("clusters/eu/two")
			return one && two, err
		}, func() {
			delete(files, "clusters/eu/one/"+manifestFile)
			delete(files, "clusters/eu/two/"+manifestFile)
		}, true},
		{"missing folder removed", func(e *Edit) (bool, error) { return e.RemoveDir("nowhere/site") }, func() {}, false},
	}
	for _, step := range steps {
		tree, err := object.GetTree(s, root)
		g.Expect(err).NotTo(HaveOccurred())
		e := NewEdit(NewGit(s, tree))
		changed, err := step.apply(e)
		g.Expect(err).NotTo(HaveOccurred(), step.name)
		g.Expect(changed).To(Equal(step.changed), step.name)
		step.files()
		root, _, err = e.Write(s, "")
		g.Expect(err).NotTo(HaveOccurred(), step.name)
		g.Expect(root.String()).To(Equal(gitWriteTree(t, files)), step.name)
	}
}
