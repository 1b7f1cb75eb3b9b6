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

// decapodRepo is a Decapod group of the test's own: lab/base holds a HelmRelease and the group's
// site-values.yaml, and each site its own site-values.yaml, both HelmValuesTransformer configs.
func decapodRepo() map[string]string {
	hdr := "apiVersion: openinfradev.github.com/v1\nkind: HelmValuesTransformer\nmetadata:\n  name: site\n"
	files := map[string]string{
		"lab/base/kustomization.yaml": "resources:\n- web.yaml\ntransformers:\n- site-values.yaml\n",
		"lab/base/web.yaml": "apiVersion: helm.toolkit.fluxcd.io/v2\nkind: HelmRelease\nmetadata:\n  name: web\n" +
			"  namespace: apps\nspec:\n  chart:\n    spec:\n      chart: web\n      version: 1.0.0\n" +
			"      sourceRef:\n        kind: HelmRepository\n        name: lab\n  values:\n    replicas: 1\n",
		"lab/base/site-values.yaml": hdr + "global:\n  registry: base.reg\ncharts:\n- name: web\n  override:\n" +
			"    image: $(registry)/web\n",
	}
	for _, s := range []string{"paris", "tokyo"} {
		files["lab/"+s+"/kustomization.yaml"] = "resources:\n- ../base\ntransformers:\n- site-values.yaml\n"
		files["lab/"+s+"/site-values.yaml"] = hdr + "charts:\n- name: web\n  override:\n    replicas: 2\n"
	}
	return files
}

func TestSyncDecapodGroupValuesChangeRendersOnlyThatSite(t *testing.T) {
	g := NewWithT(t)
	e := newSyncEnv(t, decapodRepo())
	e.opts.OverlaysDir = "lab"
	first := e.sync(t, nil)
	g.Expect(first.Sites).To(HaveLen(2), "base is not a site")
	for _, s := range first.Sites {
		g.Expect(s.Ready).To(BeTrue(), "site %s: %s", s.Name, s.Message)
	}
	g.Expect(e.rendered(t, "paris")).To(And(ContainSubstring("image: base.reg/web"), ContainSubstring("replicas: 2")))
	tokyoBefore := e.rendered(t, "tokyo")

	wt := e.srv.Clone(t, e.repo)
	wt.Write("lab/paris/site-values.yaml", "apiVersion: openinfradev.github.com/v1\nkind: HelmValuesTransformer\n"+
		"metadata:\n  name: site\ncharts:\n- name: web\n  override:\n    replicas: 5\n")
	wt.Commit("paris: five replicas")
	wt.Push()
	rendersBefore := e.renders.Load()

	res := e.sync(t, &first)

	g.Expect(e.renders.Load() - rendersBefore).To(BeEquivalentTo(1))
	g.Expect(res.ChangedSites).To(Equal([]string{"paris"}))
	g.Expect(e.rendered(t, "paris")).To(ContainSubstring("replicas: 5"))
	g.Expect(e.rendered(t, "tokyo")).To(Equal(tokyoBefore))
}

func TestSyncDecapodSiteValuesMistakeFailsOnlyThatSite(t *testing.T) {
	g := NewWithT(t)
	e := newSyncEnv(t, decapodRepo())
	e.opts.OverlaysDir = "lab"
	first := e.sync(t, nil)
	parisBefore := e.rendered(t, "paris")

	wt := e.srv.Clone(t, e.repo)
	wt.Write("lab/paris/site-values.yaml", "apiVersion: openinfradev.github.com/v1\nkind: HelmValuesTransformer\n"+
		"metadata:\n  name: site\ncharts:\n- name: web\n  override:\n    replicas: $(nope)\n")
	wt.Commit("paris: a global that does not exist")
	wt.Push()

	res := e.sync(t, &first)

	g.Expect(site(t, res, "paris").Ready).To(BeFalse())
	g.Expect(site(t, res, "paris").Message).To(ContainSubstring(
		`lab/paris/site-values.yaml:8: $(nope): no global named "nope"`))
	g.Expect(site(t, res, "tokyo").Ready).To(BeTrue())
	g.Expect(e.rendered(t, "paris")).To(Equal(parisBefore), "the last good render stays")
}

func TestSyncDecapodVendoredChartIsInflatedPerSite(t *testing.T) {
	g := NewWithT(t)
	files := decapodRepo()
	files["charts/web-1.0.0/web/Chart.yaml"] = "apiVersion: v2\nname: web\nversion: 1.0.0\n"
	files["charts/web-1.0.0/web/values.yaml"] = "replicas: 1\nimage: none\n"
	files["charts/web-1.0.0/web/templates/deployment.yaml"] = "apiVersion: apps/v1\nkind: Deployment\n" +
		"metadata:\n  name: {{ .Release.Name }}\n  namespace: {{ .Release.Namespace }}\nspec:\n" +
		"  replicas: {{ .Values.replicas }}\n  selector:\n    matchLabels: {app: web}\n  template:\n" +
		"    metadata:\n      labels: {app: web}\n    spec:\n      containers:\n      - name: web\n" +
		"        image: {{ .Values.image }}\n"
	e := newSyncEnv(t, files)
	e.opts.OverlaysDir = "lab"
	first := e.sync(t, nil)
	for _, s := range first.Sites {
		g.Expect(s.Ready).To(BeTrue(), "site %s: %s", s.Name, s.Message)
	}
	g.Expect(e.rendered(t, "paris")).To(And(ContainSubstring("kind: Deployment"), ContainSubstring("replicas: 2"),
		ContainSubstring("image: base.reg/web"), ContainSubstring("namespace: apps"),
		Not(ContainSubstring("HelmRelease"))))
	tokyoBefore := e.rendered(t, "tokyo")

	wt := e.srv.Clone(t, e.repo)
	wt.Write("lab/paris/site-values.yaml", "apiVersion: openinfradev.github.com/v1\nkind: HelmValuesTransformer\n"+
		"metadata:\n  name: site\ncharts:\n- name: web\n  override:\n    replicas: 5\n")
	wt.Commit("paris: five replicas")
	wt.Push()
	rendersBefore := e.renders.Load()

	res := e.sync(t, &first)

	g.Expect(e.renders.Load() - rendersBefore).To(BeEquivalentTo(1))
	g.Expect(res.ChangedSites).To(Equal([]string{"paris"}))
	g.Expect(e.rendered(t, "paris")).To(ContainSubstring("replicas: 5"))
	g.Expect(e.rendered(t, "tokyo")).To(Equal(tokyoBefore))
}
