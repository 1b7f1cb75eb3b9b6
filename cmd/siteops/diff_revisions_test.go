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

func TestDiffBaseHeadListsTheSitesAndObjectsABaseChangeTouches(t *testing.T) {
	g := NewWithT(t)
	srv := gitserver.Start(t, gitserver.Options{})
	srv.NewRepo(t, "config", siteFiles())
	wt := srv.Clone(t, "config")
	base := wt.Head()
	wt.Write("base/cm.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: settings\ndata:\n  color: green\n")
	wt.Write("base/extra.yaml", "apiVersion: v1\nkind: Secret\nmetadata:\n  name: extra\n  namespace: apps\n")
	wt.Write("base/kustomization.yaml", "resources:\n- cm.yaml\n- extra.yaml\n")
	wt.Write("overlays/edge/kustomization.yaml", "resources:\n- ../../base\nnamePrefix: edge-\n")
	wt.Commit("base: green, an extra Secret, a new site")

	code, out, errOut := cli(t, wt.Dir, "diff", "--base", base, "--head", "HEAD", "--exit-code")

	g.Expect(code).To(Equal(1), "--exit-code: something changes\n%s", errOut)
	g.Expect(out).To(HavePrefix("siteops diff " + base + "..HEAD: 3 of 3 sites change\n"))
	g.Expect(out).To(ContainSubstring("site dev: 1 added, 1 changed\n" +
		"  + Secret apps/dev-extra (v1)\n  ~ ConfigMap dev-settings (v1)\n"))
	g.Expect(out).To(ContainSubstring("-  color: blue\n"))
	g.Expect(out).To(ContainSubstring("+  color: green\n"))
	g.Expect(out).To(ContainSubstring("site edge: new site, 2 added\n"))
	g.Expect(out).To(ContainSubstring("site prod: 1 added, 1 changed\n"))
	g.Expect(errOut).To(BeEmpty())

	code, md, errOut := cli(t, wt.Dir, "diff", "--base", base, "--format", "markdown")
	g.Expect(code).To(Equal(0), "without --exit-code a change is not a failure: %s", errOut)
	g.Expect(md).To(HavePrefix("### siteops: rendered changes `" + base + "` → `HEAD`\n\n**3 of 3 sites change**\n"))
	g.Expect(md).To(ContainSubstring("| `edge` | new site, 2 added |\n"))
	g.Expect(md).To(ContainSubstring("| added | Secret | apps | prod-extra | v1 |\n"))
	g.Expect(md).To(ContainSubstring("<details><summary>ConfigMap prod-settings (v1)</summary>"))
}

func TestDiffBaseHeadExitsZeroWhenNoSiteChanges(t *testing.T) {
	g := NewWithT(t)
	srv := gitserver.Start(t, gitserver.Options{})
	srv.NewRepo(t, "config", siteFiles())
	wt := srv.Clone(t, "config")
	base := wt.Head()
	wt.Write("README.md", "# docs only\n")
	wt.Write("other/deploy.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: not-a-site\n")
	wt.Commit("docs and a folder no site uses")

	code, out, errOut := cli(t, wt.Dir, "diff", "--base", base, "--exit-code")

	g.Expect(code).To(Equal(0), errOut)
	g.Expect(out).To(Equal("siteops diff " + base + "..HEAD: no site changes (2 sites compared)\n\n" +
		"unchanged: dev, prod\n"))
}

func TestDiffBaseHeadFailsOnASiteThatDoesNotRender(t *testing.T) {
	g := NewWithT(t)
	srv := gitserver.Start(t, gitserver.Options{})
	srv.NewRepo(t, "config", siteFiles())
	wt := srv.Clone(t, "config")
	wt.Write("overlays/prod/kustomization.yaml", "resources:\n- ../../base\npatches:\n- path: missing.yaml\n")
	wt.Commit("break prod")

	code, out, errOut := cli(t, wt.Dir, "diff", "--base", "HEAD~1")

	g.Expect(code).To(Equal(1))
	g.Expect(out).To(ContainSubstring("site prod: failed to render at HEAD: "))
	g.Expect(out).To(ContainSubstring("missing.yaml"))
	g.Expect(out).To(ContainSubstring("unchanged: dev\n"))
	g.Expect(errOut).To(ContainSubstring("1 site failed to render: [prod]"))
}

func TestDiffRevisionFlagsAreChecked(t *testing.T) {
	srv := gitserver.Start(t, gitserver.Options{})
	srv.NewRepo(t, "config", siteFiles())
	wt := srv.Clone(t, "config")
	for _, tc := range []struct {
		name    string
		args    []string
		code    int
		wantErr string
	}{
		{"head without base", []string{"--head", "HEAD"}, 2, "--head needs --base"},
		{"site and base", []string{"--site", "dev", "--base", "HEAD"}, 2, "use one"},
		{"unknown format", []string{"--base", "HEAD", "--format", "html"}, 2, `--format "html"`},
		{"unknown revision", []string{"--base", "no-such-branch"}, 1, `revision "no-such-branch" not found`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g := NewWithT(t)
			code, _, errOut := cli(t, wt.Dir, append([]string{"diff"}, tc.args...)...)
			g.Expect(code).To(Equal(tc.code), errOut)
			g.Expect(errOut).To(ContainSubstring(tc.wantErr))
		})
	}
}
