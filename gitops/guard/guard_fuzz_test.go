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
	"errors"
	"testing"

	"github.com/siteops/siteops/gitops/internal/tree/treetest"
)

// FuzzGuard feeds arbitrary kustomization files to the reference pre-check. It must never panic, never read
// outside the root, and whenever it accepts a site, every reference it followed is a plain path inside the
// checkout. Seeds live in testdata/fuzz/FuzzGuard.
func FuzzGuard(f *testing.F) {
	for _, s := range []string{
		"resources:\n- ../../base\n",
		"resources:\n- https://example.com/x.yaml\n",
		"bases:\n- git@github.com:org/repo\npatchesStrategicMerge:\n- v.yaml\n",
		"transformers:\n- |\n  apiVersion: builtin\n  kind: PrefixSuffixTransformer\n  metadata: {name: p}\n  prefix: a-\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, kust []byte) {
		tree := &treetest.Map{Files: map[string]string{
			"base/kustomization.yaml":       okBase,
			"base/deploy.yaml":              "kind: Deployment\n",
			"overlays/s/v.yaml":             "kind: Deployment\n",
			"overlays/s/kustomization.yaml": string(kust),
		}, Symlinks: map[string]string{"overlays/s/out": "../../../escape", "overlays/s/abs": "/etc"}}
		in, err := Site(tree, "overlays/s")
		if !treetest.InsideRoot(tree.Reads) {
			t.Fatalf("read outside the root: %v", tree.Reads)
		}
		var g *Refusal
		if err != nil && !errors.As(err, &g) {
			t.Fatalf("guard returned a non-refusal error: %v", err)
		}
		if err != nil {
			return
		}
		if !treetest.InsideRoot(keys(in.Files)) {
			t.Fatalf("accepted files outside the root: %v", keys(in.Files))
		}
		k, perr := parseKustomization(kust)
		if perr != nil {
			t.Fatalf("accepted a kustomization that does not parse: %v", perr)
		}
		for _, r := range k.refs {
			if refReason(r.value, r.kind == refInline) != "" {
				t.Fatalf("accepted remote or absolute reference %q", r.value)
			}
		}
	})
}

func keys(m map[string][]byte) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	return out
}
