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
	"fmt"
	"os"
	"testing"

	. "github.com/onsi/gomega"
)

// invalidObjectRepo is baseRepo with the Widget CRD kept in base/crds (no kustomization lists it) and one
// valid site per way of breaking it: typo, widget and removed-api.
func invalidObjectRepo(t *testing.T) map[string]string {
	t.Helper()
	crd, err := os.ReadFile("validate/testdata/widget-crd.yaml")
	if err != nil {
		t.Fatal(err)
	}
	files := baseRepo()
	files["base/crds/widget-crd.yaml"] = string(crd)
	files["overlays/typo/kustomization.yaml"] = "resources:\n- ../../base\npatches:\n- path: site-values.yaml\n"
	files["overlays/typo/site-values.yaml"] = siteValues(2, "nginx:1.25")
	files["overlays/widget/kustomization.yaml"] = "resources:\n- widget.yaml\n"
	files["overlays/widget/widget.yaml"] = widget(1, 2)
	files["overlays/removed-api/kustomization.yaml"] = "resources:\n- ingress.yaml\n"
	files["overlays/removed-api/ingress.yaml"] = ingress("networking.k8s.io/v1")
	return files
}

func widget(minReplicas, maxReplicas int) string {
	return fmt.Sprintf("apiVersion: example.com/v1\nkind: Widget\nmetadata:\n  name: w\n  namespace: shop\n"+
		"spec:\n  minReplicas: %d\n  maxReplicas: %d\n", minReplicas, maxReplicas)
}

func ingress(apiVersion string) string {
	return "apiVersion: " + apiVersion + "\nkind: Ingress\nmetadata:\n  name: web\n  namespace: shop\nspec: {}\n"
}

// breakSites commits a misspelled field, a CEL violation and a removed API version, and changes dev.
func breakSites(t *testing.T, e *syncEnv) string {
	t.Helper()
	wt := e.srv.Clone(t, e.repo)
	wt.Write("overlays/typo/site-values.yaml",
		"apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\nspec:\n  replica: 3\n")
	wt.Write("overlays/widget/widget.yaml", widget(3, 2))
	wt.Write("overlays/removed-api/ingress.yaml", ingress("extensions/v1beta1"))
	wt.Write("overlays/dev/site-values.yaml", siteValues(2, "nginx:1.27"))
	rev := wt.Commit("break three sites, change dev")
	wt.Push()
	return rev
}

func TestSyncInvalidObjectsFailOnlyTheirSite(t *testing.T) {
	g := NewWithT(t)
	e := newSyncEnv(t, invalidObjectRepo(t))
	first := e.sync(t, nil)
	before := map[string]string{}
	for _, s := range first.Sites {
		g.Expect(s.Ready).To(BeTrue(), "first sync, site %s: %s", s.Name, s.Message)
		before[s.Name] = e.rendered(t, s.Name)
	}

	broken := breakSites(t, e)
	res := e.sync(t, &first)

	g.Expect(res.SourceRevision).To(Equal(broken))
	g.Expect(site(t, res, "dev").Ready).To(BeTrue())
	g.Expect(e.rendered(t, "dev")).To(ContainSubstring("nginx:1.27"))
	want := map[string]string{
		"typo":        "Deployment web: spec.replica: unknown field",
		"widget":      "Widget shop/w: spec: Invalid value: minReplicas must not exceed maxReplicas",
		"removed-api": "Ingress shop/web: apiVersion: extensions/v1beta1 Ingress is not served by Kubernetes 1.37",
	}
	for name, msg := range want {
		s := site(t, res, name)
		g.Expect(s.Ready).To(BeFalse(), "site %s should fail", name)
		g.Expect(s.Reason).To(Equal(FailureValidation), "site %s", name)
		g.Expect(s.Message).To(ContainSubstring(msg), "site %s", name)
		g.Expect(s.LastRenderedRevision).To(Equal(first.SourceRevision), "site %s keeps its last good render", name)
		g.Expect(e.rendered(t, name)).To(Equal(before[name]), "site %s output must stay untouched", name)
	}
	log := e.srv.Log(t, e.repo, DefaultTargetBranch)
	g.Expect(log[0].Trailer(TrailerSites)).To(Equal("dev"))
}

func TestSyncValidationModesAndVersions(t *testing.T) {
	g := NewWithT(t)
	e := newSyncEnv(t, invalidObjectRepo(t))
	first := e.sync(t, nil)
	breakSites(t, e)

	// Warn publishes every site and says what is wrong.
	e.opts.Validation = ValidationOptions{Mode: ValidationWarn}
	warned := e.sync(t, &first)
	for _, name := range []string{"typo", "widget", "removed-api"} {
		s := site(t, warned, name)
		g.Expect(s.Ready).To(BeTrue(), "site %s: %s", name, s.Message)
		g.Expect(s.Warnings).To(ContainElement(ContainSubstring("invalid: ")), "site %s", name)
	}
	g.Expect(e.rendered(t, "typo")).To(ContainSubstring("replica: 3"))

	// A site's own Kubernetes version applies to that site only; one siteops has no schemas of fails it.
	e.opts.Validation = ValidationOptions{SiteKubernetesVersions: map[string]string{"edge": "1.20", "dev": "v1.37.2"}}
	e.opts.Sites = []string{"dev", "edge", "prod"}
	versions := e.sync(t, nil)
	g.Expect(site(t, versions, "edge").Ready).To(BeFalse())
	g.Expect(site(t, versions, "edge").Reason).To(Equal(FailureValidation))
	g.Expect(site(t, versions, "edge").Message).To(ContainSubstring("no schemas of Kubernetes 1.20"))
	g.Expect(site(t, versions, "dev").Ready).To(BeTrue(), site(t, versions, "dev").Message)
	g.Expect(site(t, versions, "prod").Ready).To(BeTrue(), site(t, versions, "prod").Message)

	// Off publishes without looking; a CRD path that is not in the source is a permanent error.
	e.opts.Sites = nil
	e.opts.Validation = ValidationOptions{Mode: ValidationOff, CRDPaths: []string{"no/such/crds"}}
	off := e.sync(t, nil)
	g.Expect(site(t, off, "widget").Warnings).To(BeEmpty())
	e.opts.Validation.Mode = ValidationEnforce
	_, err := e.syncer.Sync(t.Context(), e.opts)
	g.Expect(err).To(MatchError(ContainSubstring("CRD path no/such/crds does not exist")))
	g.Expect(IsPermanent(err)).To(BeTrue())
}
