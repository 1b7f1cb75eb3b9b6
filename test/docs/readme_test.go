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

package docs

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/siteops/siteops/test/testenv"
)

// readmeMaxLines keeps README.md a front door: what siteops is, the two commands, a tour, links. Guides
// belong in docs/.
const readmeMaxLines = 250

// TestReadmeIsAFrontDoor fails when README.md grows past readmeMaxLines or no longer opens with the two
// commands, `make run` and `make test`, in its first code block.
func TestReadmeIsAFrontDoor(t *testing.T) {
	b, err := os.ReadFile(filepath.Join(testenv.RepoRoot(), "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	text := strings.TrimRight(string(b), "\n")
	if n := strings.Count(text, "\n") + 1; n > readmeMaxLines {
		t.Errorf("README.md has %d lines, more than %d: move the detail into a guide under docs/", n, readmeMaxLines)
	}
	_, blocks := splitFences(text)
	if len(blocks) == 0 {
		t.Fatal("README.md has no code block")
	}
	var commands []string
	for _, line := range blocks[0].lines {
		if f := strings.Fields(line); len(f) >= 2 {
			commands = append(commands, f[0]+" "+f[1])
		}
	}
	if got := strings.Join(commands, ", "); got != "make run, make test" {
		t.Errorf("README.md's first code block runs %q, want the two commands: make run, make test", got)
	}
}
