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

package guard

import (
	"os/exec"
	"strings"
	"testing"
)

// forbiddenDeps are the packages through which code reaches the network.
func forbiddenDeps(pkg string) bool {
	switch pkg {
	case "net", "net/http", "crypto/tls":
		return true
	}
	return strings.HasPrefix(pkg, "github.com/go-git/go-git/v5/plumbing/transport")
}

// deps lists every package pkg links, as `go list -deps` prints them.
func deps(t *testing.T, pkg string) []string {
	t.Helper()
	out, err := exec.Command("go", "list", "-deps", pkg).Output()
	if err != nil {
		t.Fatalf("go list -deps %s: %v", pkg, err)
	}
	return strings.Fields(string(out))
}

// TestGuardLinksNoNetworkCode checks that the guard cannot reach the network: nothing it links, however
// deep, is a network or Git transport package. The render stage links net/http through kustomize's own
// libraries (krusty, kyaml's OpenAPI data), so for it only Git's transports are forbidden: it builds from
// the guarded files in memory, with loading restricted to them.
func TestGuardLinksNoNetworkCode(t *testing.T) {
	for pkg, forbidden := range map[string]func(string) bool{
		"github.com/siteops/siteops/gitops/guard": forbiddenDeps,
		"github.com/siteops/siteops/gitops/render": func(p string) bool {
			return strings.HasPrefix(p, "github.com/go-git/go-git/v5/plumbing/transport")
		},
	} {
		all := deps(t, pkg)
		if len(all) < 10 {
			t.Fatalf("go list -deps %s listed only %v", pkg, all)
		}
		var bad []string
		for _, d := range all {
			if forbidden(d) {
				bad = append(bad, d)
			}
		}
		if len(bad) > 0 {
			t.Errorf("%s links %s", pkg, strings.Join(bad, ", "))
		} else {
			t.Logf("%s: %d packages linked, none of them forbidden", pkg, len(all))
		}
	}
}
