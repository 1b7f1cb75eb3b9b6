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

// Package arch holds tests of the codebase's shape: which package-level state the libraries keep and which
// packages they import. It has no product code.
package arch

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
)

// libraryRoots are the folders of the shared libraries, whose packages keep no package-level mutable state: a
// value owns its caches, locks and metrics.
func libraryRoots() []string { return []string{"internal", "controllers", "gitops"} }

// versionFile is the one file allowed a plain package-level var: Version, which the linker sets (-X).
const versionFile = "internal/version/version.go"

// schemasFile is the one file allowed an embedded file system, schemaFiles: the built-in types' OpenAPI schemas
// compiled into the binary (go:embed needs a package-level var; an embed.FS cannot be changed).
const schemasFile = "gitops/validate/builtin.go"

// dashboardAssetsFile is the one other file allowed an embedded file system, assets: the dashboard's page
// templates, stylesheet and script, compiled into the binary.
const dashboardAssetsFile = "internal/dashboard/assets.go"

// renderFile is the one file allowed a package-level lock, openAPIMu: it guards kustomize's OpenAPI schema, which
// belongs to the process, so every Syncer in the process must share it.
const renderFile = "gitops/render/render.go"

// TestLibrariesKeepNoPackageState fails listing file:line: name for every package-level var in the
// libraries' non-test files, except regexp.MustCompile values, errors.New and fmt.Errorf sentinels, blank
// assertions (var _ T = ...), internal/version.Version, gitops/render.openAPIMu, gitops/validate.schemaFiles and
// internal/dashboard.assets.
func TestLibrariesKeepNoPackageState(t *testing.T) {
	root := moduleRoot(t)
	var found []string
	for _, dir := range libraryRoots() {
		walkGo(t, root, dir, func(rel string, test bool) {
			if test {
				return
			}
			found = append(found, packageVars(t, root, rel)...)
		})
	}
	if len(found) > 0 {
		t.Errorf("package-level vars in libraries (own them in a value, or make them consts or funcs):\n%s",
			strings.Join(found, "\n"))
	}
}

// packageVars returns file:line: name for each package-level var of the file rel that is not allowed.
func packageVars(t *testing.T, root, rel string) []string {
	t.Helper()
	src, err := os.ReadFile(filepath.Join(root, rel))
	if err != nil {
		t.Fatal(err)
	}
	found, err := disallowedVars(rel, src)
	if err != nil {
		t.Fatal(err)
	}
	return found
}

// disallowedVars parses src, the file rel, and returns file:line: name for each package-level var it declares
// that is not allowed.
func disallowedVars(rel string, src []byte) ([]string, error) {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, rel, src, parser.SkipObjectResolution)
	if err != nil {
		return nil, fmt.Errorf("parsing %s: %w", rel, err)
	}
	imports := importNames(f)
	var found []string
	for _, decl := range f.Decls {
		gen, ok := decl.(*ast.GenDecl)
		if !ok || gen.Tok != token.VAR {
			continue
		}
		for _, spec := range gen.Specs {
			vs := spec.(*ast.ValueSpec)
			for i, name := range vs.Names {
				var value ast.Expr
				if len(vs.Values) == len(vs.Names) {
					value = vs.Values[i]
				}
				if allowedVar(rel, name.Name, value, imports) {
					continue
				}
				found = append(found, fmt.Sprintf("%s:%d: %s", filepath.ToSlash(rel), fset.Position(name.Pos()).Line,
					name.Name))
			}
		}
	}
	return found, nil
}

// allowedVar says whether the package-level var name = value of file rel is allowed; imports maps the file's
// import names to their paths.
func allowedVar(rel, name string, value ast.Expr, imports map[string]string) bool {
	if name == "_" {
		return true // a compile-time assertion: var _ Interface = Type{}
	}
	if filepath.ToSlash(rel) == versionFile && name == "Version" {
		return true // set by the linker: -X github.com/siteops/siteops/internal/version.Version=...
	}
	if filepath.ToSlash(rel) == schemasFile && name == "schemaFiles" {
		return true // read-only data embedded at build time
	}
	if filepath.ToSlash(rel) == dashboardAssetsFile && name == "assets" {
		return true // read-only files embedded at build time
	}
	if filepath.ToSlash(rel) == renderFile && name == "openAPIMu" {
		return true // guards kustomize's process-wide OpenAPI schema
	}
	call, ok := value.(*ast.CallExpr)
	if !ok {
		return false
	}
	sel, ok := call.Fun.(*ast.SelectorExpr)
	if !ok {
		return false
	}
	pkg, ok := sel.X.(*ast.Ident)
	if !ok {
		return false
	}
	switch imports[pkg.Name] + "." + sel.Sel.Name {
	case "regexp.MustCompile", "errors.New", "fmt.Errorf":
		return true
	}
	return false
}

// importNames maps each name f refers to an import by to the import's path.
func importNames(f *ast.File) map[string]string {
	names := map[string]string{}
	for _, imp := range f.Imports {
		path, err := strconv.Unquote(imp.Path.Value)
		if err != nil {
			continue
		}
		name := path[strings.LastIndex(path, "/")+1:]
		if imp.Name != nil {
			name = imp.Name.Name
		}
		names[name] = path
	}
	return names
}

// walkGo calls visit with the path (relative to root) of every .go file under root/dir outside testdata
// folders, and whether it is a test file, in lexical order.
func walkGo(t *testing.T, root, dir string, visit func(rel string, test bool)) {
	t.Helper()
	var files []string
	err := filepath.WalkDir(filepath.Join(root, dir), func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && d.Name() == "testdata" {
			return filepath.SkipDir
		}
		if !d.IsDir() && strings.HasSuffix(path, ".go") {
			rel, err := filepath.Rel(root, path)
			if err != nil {
				return err
			}
			files = append(files, rel)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(files)
	for _, rel := range files {
		visit(rel, strings.HasSuffix(rel, "_test.go"))
	}
}

// moduleRoot is the folder of go.mod above the test's working directory.
func moduleRoot(t *testing.T) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatal("no go.mod above the working directory")
		}
		dir = parent
	}
}
