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
	"path/filepath"
	"testing"

	"sigs.k8s.io/kustomize/api/krusty"
	"sigs.k8s.io/kustomize/kyaml/filesys"

	gitopsv1alpha1 "github.com/siteops/siteops/apis/gitops/v1alpha1"
	"github.com/siteops/siteops/test/testenv"
)

// TestArgoCDApplicationSetGeneratesOneLabelledApplicationPerSiteFolder: base/argocd builds with kustomize to
// one ApplicationSet whose Git directory generator walks the rendered branch's top folders, and whose
// template sends folder <site> to the Argo CD cluster named <site>, with the labels the SiteSync controller
// finds a site's Application by.
func TestArgoCDApplicationSetGeneratesOneLabelledApplicationPerSiteFolder(t *testing.T) {
	opts := krusty.MakeDefaultOptions()
	m, err := krusty.MakeKustomizer(opts).Run(filesys.MakeFsOnDisk(), filepath.Join(testenv.RepoRoot(), "base", "argocd"))
	if err != nil {
		t.Fatalf("kustomize build base/argocd: %v", err)
	}
	if n := len(m.Resources()); n != 1 {
		t.Fatalf("base/argocd renders %d objects, want the one ApplicationSet", n)
	}
	set := find(t, m.Resources(), "ApplicationSet", "siteops-sites")
	want := map[string]string{
		"spec.generators[0].git.revision":                               "rendered",
		"spec.generators[0].git.directories[0].path":                    "*",
		"spec.template.spec.source.targetRevision":                      "rendered",
		"spec.template.spec.source.path":                                "{{path}}",
		"spec.template.spec.destination.name":                           "{{path.basename}}",
		"spec.template.metadata.labels.gitops\\.siteops\\.dev/site":     "{{path.basename}}",
		"spec.template.metadata.labels.gitops\\.siteops\\.dev/sitesync": "sites",
	}
	for path, v := range want {
		got, err := set.GetString(path)
		if err != nil || got != v {
			t.Errorf("%s = %q (%v), want %q", path, got, err, v)
		}
	}
	labels, err := set.GetFieldValue("spec.template.metadata.labels")
	if err != nil {
		t.Fatalf("template labels: %v", err)
	}
	for _, key := range []string{gitopsv1alpha1.LabelSiteSync, gitopsv1alpha1.LabelSite} {
		if _, ok := labels.(map[string]any)[key]; !ok {
			t.Errorf("template labels %v lack %s", labels, key)
		}
	}
	if _, err := set.GetFieldValue("spec.template.spec.syncPolicy.automated"); err != nil {
		t.Errorf("the generated Applications sync automatically: %v", err)
	}
	if server, err := set.GetString("spec.template.spec.destination.server"); err == nil {
		t.Errorf("destination.server %q: a site is the cluster named like it, never in-cluster", server)
	}
}
