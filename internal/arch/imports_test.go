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

package arch

import (
	"fmt"
	"go/parser"
	"go/token"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// cmdPackages is the import path of the binaries' folder: wiring that libraries never depend on.
const cmdPackages = "github.com/siteops/siteops/cmd"

// TestLibrariesDoNotImportCmd fails listing file:line: path for every import of a package under cmd/ by a Go
// file, tests included, under controllers/, gitops/ or internal/.
func TestLibrariesDoNotImportCmd(t *testing.T) {
	root := moduleRoot(t)
	var found []string
	for _, dir := range []string{"controllers", "gitops", "internal"} {
		walkGo(t, root, dir, func(rel string, _ bool) {
			fset := token.NewFileSet()
			f, err := parser.ParseFile(fset, filepath.Join(root, rel), nil, parser.ImportsOnly)
			if err != nil {
				t.Fatal(err)
			}
			for _, imp := range f.Imports {
				path, err := strconv.Unquote(imp.Path.Value)
				if err == nil && importsCmd(path) {
					found = append(found, fmt.Sprintf("%s:%d: %s", filepath.ToSlash(rel),
						fset.Position(imp.Pos()).Line, path))
				}
			}
		})
	}
	if len(found) > 0 {
		t.Errorf("libraries import the binaries' packages (move what they need into internal/):\n%s",
			strings.Join(found, "\n"))
	}
}

// importsCmd says whether path is cmd/ or a package under it.
func importsCmd(path string) bool {
	return path == cmdPackages || strings.HasPrefix(path, cmdPackages+"/")
}

// TestImportsCmd: the paths under cmd/ are caught, look-alikes are not.
func TestImportsCmd(t *testing.T) {
	for path, want := range map[string]bool{
		cmdPackages:                                   true,
		cmdPackages + "/manager":                      true,
		cmdPackages + "/siteops/internal":             true,
		"github.com/siteops/siteops/cmdutil":          false,
		"github.com/siteops/siteops/internal/standby": false,
		"github.com/other/project/cmd/manager":        false,
	} {
		if got := importsCmd(path); got != want {
			t.Errorf("importsCmd(%q) = %t, want %t", path, got, want)
		}
	}
}
