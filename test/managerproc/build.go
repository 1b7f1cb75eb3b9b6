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

package managerproc

import (
	"fmt"
	"os"
	"os/exec"
	"strings"

	"github.com/siteops/siteops/test/testenv"
)

// Build builds the main package ./cmd/<cmd> of this repository into out, linked with `make build`'s version
// ldflags (`make ldflags VERSION=version`) and CGO off. It skips `make build`'s -trimpath, which would
// recompile every package the tests have already compiled.
func Build(cmd, out, version string) error { return BuildIn(testenv.RepoRoot(), cmd, out, version) }

// BuildIn is Build of the copy of this repository in root (another version of the tree).
func BuildIn(root, cmd, out, version string) error {
	mk := exec.Command("make", "-s", "--no-print-directory", "ldflags", "VERSION="+version)
	mk.Dir = root
	ldflags, err := mk.Output()
	if err != nil {
		return fmt.Errorf("make ldflags: %w", err)
	}
	build := exec.Command("go", "build", "-ldflags", strings.TrimSpace(string(ldflags)), "-o", out, "./cmd/"+cmd)
	build.Dir = root
	build.Env = append(os.Environ(), "CGO_ENABLED=0")
	if b, err := build.CombinedOutput(); err != nil {
		return fmt.Errorf("go build ./cmd/%s: %w\n%s", cmd, err, b)
	}
	return nil
}
