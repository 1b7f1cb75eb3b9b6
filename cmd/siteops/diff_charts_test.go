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

package main

import (
	"testing"

	. "github.com/onsi/gomega"

	"github.com/siteops/siteops/test/gitserver"
)

// chartSiteFiles are two sites rendering one vendored chart, each with its own values.
func chartSiteFiles(version, port string) map[string]string {
	files := map[string]string{
		"charts/web/Chart.yaml":  "apiVersion: v2\nname: web\nversion: " + version + "\n",
		"charts/web/values.yaml": "replicas: 1\n",
		"charts/web/templates/service.yaml": "apiVersion: v1\nkind: Service\nmetadata:\n  name: web\n" +
			"  namespace: apps\n  labels:\n    chart: web-{{ .Chart.Version }}\nspec:\n  ports:\n  - port: " + port + "\n",
	}
	for _, s := range []string{"dev", "prod"} {
		files["overlays/"+s+"/kustomization.yaml"] = "helmGlobals:\n  chartHome: ../../charts\nhelmCharts:\n" +
			"- name: web\n  releaseName: web\n  valuesFile: site-values.yaml\n"
		files["overlays/"+s+"/site-values.yaml"] = "replicas: 2\n"
	}
	return files
}

func TestDiffShowsAChartVersionBumpPerSite(t *testing.T) {
	g := NewWithT(t)
	srv := gitserver.Start(t, gitserver.Options{})
	srv.NewRepo(t, "config", chartSiteFiles("1.0.0", "80"))
	wt := srv.Clone(t, "config")
	base := wt.Head()
	for p, c := range chartSiteFiles("1.1.0", "8080") {
		wt.Write(p, c)
	}
	wt.Commit("web 1.1.0: port 8080")

	code, out, errOut := cli(t, wt.Dir, "diff", "--base", base, "--head", "HEAD", "--exit-code")

	g.Expect(code).To(Equal(1), "--exit-code: something changes\n%s", errOut)
	g.Expect(out).To(HavePrefix("siteops diff " + base + "..HEAD: 2 of 2 sites change\n"))
	for _, s := range []string{"dev", "prod"} {
		g.Expect(out).To(ContainSubstring("site " + s + ": 1 changed\n  ~ Service apps/web (v1)\n"))
	}
	g.Expect(out).To(ContainSubstring("-    chart: web-1.0.0\n"))
	g.Expect(out).To(ContainSubstring("+    chart: web-1.1.0\n"))
	g.Expect(out).To(ContainSubstring("+  - port: 8080\n"))

	code, md, errOut := cli(t, wt.Dir, "diff", "--base", base, "--format", "markdown")
	g.Expect(code).To(Equal(0), errOut)
	g.Expect(md).To(ContainSubstring("| `dev` | 1 changed |\n"))
	g.Expect(md).To(ContainSubstring("<details><summary>Service apps/web (v1)</summary>"))

	code, rendered, errOut := cli(t, wt.Dir, "render", "--dir", "overlays/prod")
	g.Expect(code).To(Equal(0), errOut)
	g.Expect(rendered).To(ContainSubstring("chart: web-1.1.0"))
}
