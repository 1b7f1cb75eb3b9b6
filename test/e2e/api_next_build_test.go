//go:build e2e && apiupgrade

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

package e2e

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/siteops/siteops/test/managerproc"
	"github.com/siteops/siteops/test/testenv"
)

// nextVersion is the VERSION the next manager build is linked with; its "manager started" log line names it.
const nextVersion = "v0.0.0-e2e-next"

// sitesyncCRD is the SiteSync CRD's file under base/crd/bases.
const sitesyncCRD = "gitops.siteops.dev_sitesyncs.yaml"

// apiNext is the next manager version of the API upgrade test: this tree with testdata/api-next/api-next.patch
// applied (SiteSync spec.description and the Described condition), its manager binary and regenerated CRD.
type apiNext struct {
	manager, crd string
}

// buildAPINext builds the next version once per tree and patch: the tracked files as they are (`git stash
// create`, HEAD when nothing changed) are exported to a folder, the patch applied, `make generate manifests`
// run there and cmd/manager built with `make ldflags` (managerproc.BuildIn). The result is cached outside the
// work tree, under $SITEOPS_CACHE/api-next/<hash of tree, patch and Go version>/, so a warm run does not build.
func buildAPINext(t *testing.T) apiNext {
	t.Helper()
	root := testenv.RepoRoot()
	patch := filepath.Join(root, "test", "e2e", "testdata", "api-next", "api-next.patch")
	diff, err := os.ReadFile(patch)
	if err != nil {
		t.Fatal(err)
	}
	rev := strings.TrimSpace(git(t, root, "stash", "create"))
	if rev == "" {
		rev = "HEAD"
	}
	tree := strings.TrimSpace(git(t, root, "rev-parse", rev+"^{tree}"))
	sum := sha256.Sum256([]byte(tree + "\n" + runtime.Version() + "\n" + string(diff)))
	dir := filepath.Join(testenv.Cache(), "api-next", hex.EncodeToString(sum[:8]))
	next := apiNext{manager: filepath.Join(dir, "manager"), crd: filepath.Join(dir, sitesyncCRD)}
	if _, err := os.Stat(next.crd); err == nil {
		t.Logf("next manager version: cached in %s (tree %s + api-next.patch)", dir, short(tree))
		return next
	}
	start := time.Now()
	t.Logf("next manager version: building tree %s + api-next.patch into %s (the first time takes minutes)",
		short(tree), dir)
	src := filepath.Join(testenv.Cache(), "api-next", "src-"+hex.EncodeToString(sum[:8]))
	_ = os.RemoveAll(src)
	defer func() { _ = os.RemoveAll(src) }()
	archive := filepath.Join(t.TempDir(), "tree.tar")
	git(t, root, "archive", "-o", archive, rev)
	if err := os.MkdirAll(src, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, step := range [][]string{
		{"tar", "-xf", archive, "-C", src},
		{"git", "apply", patch},
		// controller-gen is the one of this checkout's bin/ (make installs it there if missing).
		{"make", "-s", "generate", "manifests", "LOCALBIN=" + filepath.Join(root, "bin")},
	} {
		runIn(t, src, step...)
	}
	tmp := dir + ".tmp"
	_ = os.RemoveAll(tmp)
	if err := os.MkdirAll(tmp, 0o755); err != nil {
		t.Fatal(err)
	}
	t.Logf("next manager version: go build ./cmd/manager (every package of the copy compiles anew)")
	if err := managerproc.BuildIn(src, "manager", filepath.Join(tmp, "manager"), nextVersion); err != nil {
		t.Fatal(err)
	}
	crd, err := os.ReadFile(filepath.Join(src, "base", "crd", "bases", sitesyncCRD))
	if err != nil {
		t.Fatal(err)
	}
	if was, err := os.ReadFile(filepath.Join(root, "base", "crd", "bases", sitesyncCRD)); err != nil {
		t.Fatal(err)
	} else if bytes.Equal(crd, was) {
		t.Fatalf("the regenerated %s is the tree's own: api-next.patch no longer changes the API", sitesyncCRD)
	}
	if err := os.WriteFile(filepath.Join(tmp, sitesyncCRD), crd, 0o644); err != nil {
		t.Fatal(err)
	}
	_ = os.RemoveAll(dir)
	if err := os.Rename(tmp, dir); err != nil {
		t.Fatal(err)
	}
	t.Logf("next manager version: built in %s", time.Since(start).Round(time.Second))
	return next
}

// runIn runs a command in dir with CGO off; it fails the test with the command's output on error.
func runIn(t *testing.T, dir string, args ...string) {
	t.Helper()
	cmd := exec.Command(args[0], args[1:]...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%s (in %s): %v\n%s", strings.Join(args, " "), dir, err, out)
	}
}
