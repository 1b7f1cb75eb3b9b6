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

package manifests

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/siteops/siteops/test/testenv"
)

// TestAPINextPatchStillApplies: the next manager version of make test-api-upgrade is this tree with
// test/e2e/testdata/api-next/api-next.patch applied. That test is not in make test, so a change to the files
// the patch touches would break it unseen; this check is.
func TestAPINextPatchStillApplies(t *testing.T) {
	root := testenv.RepoRoot()
	// Read here, not by git alone, so that go test's cache knows the result depends on the patch.
	patch, err := os.ReadFile(filepath.Join(root, "test", "e2e", "testdata", "api-next", "api-next.patch"))
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("git", "apply", "--check", "-")
	cmd.Dir, cmd.Stdin = root, bytes.NewReader(patch)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("git apply --check of api-next.patch: %v\n%s\nregenerate it: apply it to a worktree by hand, then "+
			"git diff (keep its preamble)", err, out)
	}
}
