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
	"testing"

	. "github.com/onsi/gomega"
)

// chartRepo is a source whose sites each render the shared chart charts/web with their own site-values.yaml as
// Helm values: paris and tokyo run the same values, osaka its own.
func chartRepo() map[string]string {
	files := map[string]string{
		"charts/web/Chart.yaml":  "apiVersion: v2\nname: web\nversion: 0.1.0\n",
		"charts/web/values.yaml": "replicas: 1\nimage: nginx:1.25\nzone: \"\"\n",
		"charts/web/templates/deployment.yaml": `apiVersion: apps/v1
kind: Deployment
metadata:
  name: {{ .Release.Name }}
  namespace: {{ .Release.Namespace }}
  labels:
    chart: {{ .Chart.Name }}-{{ .Chart.Version }}
    zone: {{ required "zone is required" .Values.zone | quote }}
spec:
  replicas: {{ .Values.replicas }}
  selector:
    matchLabels: {app: web}
  template:
    metadata:
      labels: {app: web}
    spec:
      containers:
      - name: web
        image: {{ .Values.image }}
`,
	}
	for site, values := range map[string]string{"paris": "zone: eu\n", "tokyo": "zone: eu\n",
		"osaka": "zone: ap\nreplicas: 2\n"} {
		files["overlays/"+site+"/kustomization.yaml"] = "helmGlobals:\n  chartHome: ../../charts\nhelmCharts:\n" +
			"- name: web\n  releaseName: web\n  namespace: apps\n  valuesFile: site-values.yaml\n"
		files["overlays/"+site+"/site-values.yaml"] = values
	}
	return files
}

func TestSyncChartSitesWithTheSameValuesCostOneRender(t *testing.T) {
	g := NewWithT(t)
	e := newSyncEnv(t, chartRepo())

	res := e.sync(t, nil)

	g.Expect(res.Sites).To(HaveLen(3))
	for _, s := range res.Sites {
		g.Expect(s.Ready).To(BeTrue(), "site %s: %s", s.Name, s.Message)
	}
	g.Expect(e.rendered(t, "osaka")).To(And(ContainSubstring("replicas: 2"), ContainSubstring("zone: ap"),
		ContainSubstring("namespace: apps"), ContainSubstring("chart: web-0.1.0")))
	g.Expect(e.rendered(t, "paris")).To(Equal(e.rendered(t, "tokyo")))
	g.Expect(e.charts.Load()).To(BeEquivalentTo(2), "paris and tokyo share one chart render")
}

func TestSyncChartSiteValuesChangeRendersOnlyThatSite(t *testing.T) {
	g := NewWithT(t)
	e := newSyncEnv(t, chartRepo())
	first := e.sync(t, nil)
	tokyoBefore := e.rendered(t, "tokyo")

	wt := e.srv.Clone(t, e.repo)
	wt.Write("overlays/paris/site-values.yaml", "zone: eu\nreplicas: 4\n")
	wt.Commit("paris: four replicas")
	wt.Push()
	rendersBefore := e.renders.Load()

	res := e.sync(t, &first)

	g.Expect(e.renders.Load() - rendersBefore).To(BeEquivalentTo(1))
	g.Expect(res.ChangedSites).To(Equal([]string{"paris"}))
	g.Expect(e.rendered(t, "paris")).To(ContainSubstring("replicas: 4"))
	g.Expect(e.rendered(t, "tokyo")).To(Equal(tokyoBefore))
}

func TestSyncChartVersionBumpRendersEverySiteOfTheChart(t *testing.T) {
	g := NewWithT(t)
	e := newSyncEnv(t, chartRepo())
	first := e.sync(t, nil)

	wt := e.srv.Clone(t, e.repo)
	wt.Write("charts/web/Chart.yaml", "apiVersion: v2\nname: web\nversion: 0.2.0\n")
	wt.Write("charts/web/templates/service.yaml", "apiVersion: v1\nkind: Service\nmetadata:\n  name: web\n"+
		"spec:\n  selector: {app: web}\n  ports:\n  - port: 80\n")
	wt.Commit("web 0.2.0: a Service")
	wt.Push()

	res := e.sync(t, &first)

	g.Expect(res.ChangedSites).To(Equal([]string{"osaka", "paris", "tokyo"}))
	for _, s := range []string{"osaka", "paris", "tokyo"} {
		g.Expect(e.rendered(t, s)).To(And(ContainSubstring("chart: web-0.2.0"), ContainSubstring("kind: Service")),
			"site %s", s)
	}
}

func TestSyncChartValuesMistakeFailsOnlyThatSite(t *testing.T) {
	g := NewWithT(t)
	e := newSyncEnv(t, chartRepo())
	first := e.sync(t, nil)
	parisBefore := e.rendered(t, "paris")

	wt := e.srv.Clone(t, e.repo)
	wt.Write("overlays/paris/site-values.yaml", "replicas: 3\n")
	wt.Write("overlays/osaka/site-values.yaml", "zone: ap\nreplicas: 5\n")
	wt.Commit("paris forgets its zone; osaka scales")
	wt.Push()

	res := e.sync(t, &first)

	paris := site(t, res, "paris")
	g.Expect(paris.Ready).To(BeFalse())
	g.Expect(paris.Message).To(ContainSubstring(fmt.Sprintf(
		"overlays/paris/kustomization.yaml: helmCharts[0]: helm chart %q: rendering: ", "web")))
	g.Expect(paris.Message).To(ContainSubstring("zone is required"))
	g.Expect(e.rendered(t, "paris")).To(Equal(parisBefore), "the last good render stays")
	g.Expect(site(t, res, "osaka").Ready).To(BeTrue())
	g.Expect(e.rendered(t, "osaka")).To(ContainSubstring("replicas: 5"))
	g.Expect(res.ChangedSites).To(Equal([]string{"osaka"}))
}
