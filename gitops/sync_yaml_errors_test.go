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
	"testing"

	. "github.com/onsi/gomega"
)

// TestSyncYAMLErrorsNameTheFileAndLine: a YAML mistake in a file a site loads (its values patch in either
// syntax, a later document of a resource file, its kustomization) fails that site alone, with a message that
// names the file (its path in the source repository) and the line; the other sites render.
func TestSyncYAMLErrorsNameTheFileAndLine(t *testing.T) {
	brokenValues := "apiVersion: apps/v1\nkind: Deployment\nmetadata: name: web\nspec:\n  replicas: 2\n"
	for name, tc := range map[string]struct {
		files  map[string]string // under overlays/<name>/
		want   string            // in the site's message; <site> is the overlay's folder
		reason FailureReason
	}{
		"values-patch": {files: map[string]string{
			"kustomization.yaml": "resources:\n- ../../base\npatches:\n- path: site-values.yaml\n",
			"site-values.yaml":   brokenValues,
		}, want: "overlays/values-patch/site-values.yaml:3: invalid YAML: mapping values are not allowed",
			reason: FailureKustomize},
		"values-strategic-merge": {files: map[string]string{
			"kustomization.yaml": "resources:\n- ../../base\npatchesStrategicMerge:\n- site-values.yaml\n",
			"site-values.yaml":   brokenValues,
		}, want: "overlays/values-strategic-merge/site-values.yaml:3: invalid YAML: mapping values are not allowed",
			reason: FailureKustomize},
		"second-document": {files: map[string]string{
			"kustomization.yaml": "resources:\n- ../../base\n- extra.yaml\n",
			"extra.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n---\napiVersion: v1\n" +
				"kind: ConfigMap\nmetadata:\n  name: b: c\n",
		}, want: "overlays/second-document/extra.yaml:9: invalid YAML: mapping values are not allowed",
			reason: FailureKustomize},
		"kustomization": {files: map[string]string{
			"kustomization.yaml": "resources:\n- ../../base\nnamePrefix: a: b\n",
		}, want: "overlays/kustomization/kustomization.yaml:3: invalid YAML: mapping values are not allowed",
			reason: FailureGuardRefused},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			g := NewWithT(t)
			files := baseRepo()
			for p, content := range tc.files {
				files["overlays/"+name+"/"+p] = content
			}
			e := newSyncEnv(t, files)

			res := e.sync(t, nil)

			broken := site(t, res, name)
			g.Expect(broken.Ready).To(BeFalse())
			g.Expect(broken.Reason).To(Equal(tc.reason))
			g.Expect(broken.Message).To(ContainSubstring(tc.want))
			g.Expect(broken.Message).NotTo(ContainSubstring("unable to parse SM or JSON patch"))
			for _, s := range []string{"dev", "prod", "edge"} {
				g.Expect(site(t, res, s).Ready).To(BeTrue(), "%s: %s", s, site(t, res, s).Message)
				g.Expect(e.rendered(t, s)).NotTo(BeEmpty())
			}
		})
	}
}
