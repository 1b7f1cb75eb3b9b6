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
	"path/filepath"
	"strings"
	"testing"

	. "github.com/onsi/gomega"

	"github.com/siteops/siteops/test/gitserver"
)

// hostileCase is an overlay that must fail its site and nothing else.
type hostileCase struct {
	files    map[string]string // path under the site folder → content
	symlinks map[string]string // path under the site folder → target
	want     string            // in the site's message
}

func hostileCases(addr, outsideFile, execMarkerScript string) map[string]hostileCase {
	kust := func(s string) map[string]string { return map[string]string{"kustomization.yaml": s} }
	return map[string]hostileCase{
		"malformed-kustomization": {files: kust("resources: [../../base\n"), want: "invalid YAML"},
		"malformed-resource": {files: map[string]string{
			"kustomization.yaml": "resources:\n- bad.yaml\n", "bad.yaml": "kind: ConfigMap\nmetadata: [name: x\n",
		}, want: "kustomize build"},
		"missing-base": {files: kust("resources:\n- ../../no-such-base\n"), want: "not found in the checkout"},
		"remote-http": {files: kust(fmt.Sprintf("resources:\n- http://%s/deploy.yaml\n", addr)),
			want: "remote references are not allowed"},
		"remote-git-ref": {files: kust(fmt.Sprintf("resources:\n- https://%s/org/repo.git//base?ref=main\n", addr)),
			want: "remote references are not allowed"},
		"remote-scp": {files: kust(fmt.Sprintf("resources:\n- git@%s:org/repo.git\n", strings.Split(addr, ":")[0])),
			want: "remote references are not allowed"},
		"remote-github": {files: kust("resources:\n- github.com/kubernetes-sigs/kustomize//examples/helloWorld?ref=v3.3.1\n"),
			want: "remote references are not allowed"},
		"remote-ssh-component": {files: kust(fmt.Sprintf("resources:\n- ../../base\ncomponents:\n- "+
			"ssh://git@%s/org/repo.git\n", addr)),
			want: "remote references are not allowed"},
		"escape-dotdot": {files: kust("resources:\n- ../../../../outside\n"), want: "leaves the checkout"},
		"symlink-escape": {files: kust("resources:\n- ../../base\n- leak.yaml\n"),
			symlinks: map[string]string{"leak.yaml": outsideFile}, want: "outside the checkout"},
		"symlink-relative-escape": {files: kust("resources:\n- leak.yaml\n"),
			symlinks: map[string]string{"leak.yaml": "../../../../../../etc/hostname"}, want: "outside the checkout"},
		"proc": {files: kust("resources:\n- /proc/self/environ\n"), want: "absolute paths are not allowed"},
		"proc-symlink": {files: kust("resources:\n- env.yaml\n"),
			symlinks: map[string]string{"env.yaml": "/proc/self/environ"}, want: "outside the checkout"},
		"exec-function": {files: map[string]string{
			"kustomization.yaml": "resources:\n- ../../base\ntransformers:\n- fn.yaml\n",
			"fn.yaml": "apiVersion: example.com/v1\nkind: Touch\nmetadata:\n  name: touch\n  annotations:\n" +
				"    config.kubernetes.io/function: |\n      exec:\n        path: " + execMarkerScript + "\n",
		}, want: "KRM functions"},
		"exec-function-inline": {files: kust("resources:\n- ../../base\ngenerators:\n- |\n  apiVersion: example.com/v1\n" +
			"  kind: Touch\n  metadata:\n    name: touch\n    annotations:\n      config.kubernetes.io/function: |\n" +
			"        exec:\n          path: " + execMarkerScript + "\n"), want: "KRM functions"},
		"exec-plugin-legacy": {files: map[string]string{
			"kustomization.yaml": "generators:\n- plugin.yaml\n",
			"plugin.yaml":        "apiVersion: someteam.example.com/v1\nkind: ChartInflator\nmetadata:\n  name: x\n",
		}, want: "kustomize build"},
		"helm-chart": {files: kust(fmt.Sprintf("helmCharts:\n- name: web\n  repo: http://%s/charts\n  version: 1.0.0\n",
			addr)),
			want: "siteops does not fetch charts"},
		"helm-generator": {files: map[string]string{
			"kustomization.yaml": "generators:\n- helm.yaml\n",
			"helm.yaml": fmt.Sprintf("apiVersion: builtin\nkind: HelmChartInflationGenerator\nmetadata:\n  name: x\n"+
				"name: web\nrepo: http://%s/charts\n", addr),
		}, want: "list the chart in helmCharts"},
		"duplicate-ids": {files: map[string]string{
			"kustomization.yaml": "resources:\n- a.yaml\n- b.yaml\n",
			"a.yaml":             "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: same\n",
			"b.yaml":             "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: same\n",
		}, want: "already registered id"},
		"plaintext-secret": {files: map[string]string{
			"kustomization.yaml": "resources:\n- secret.yaml\n",
			"secret.yaml":        "apiVersion: v1\nkind: Secret\nmetadata:\n  name: db\nstringData:\n  password: hunter2\n",
		}, want: "plaintext stringData"},
		"generated-secret": {files: kust("secretGenerator:\n- name: db\n  literals:\n  - password=hunter2\n"),
			want: "plaintext data"},
		"bad-patch-target": {files: map[string]string{
			"kustomization.yaml": "resources:\n- ../../base\npatches:\n- path: patch.yaml\n",
			"patch.yaml": "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: no-such-deployment\nspec:\n  " +
				"replicas: 2\n",
		}, want: "no resource matches"},
		"cycle":        {files: kust("resources:\n- ../cycle-b\n"), want: "kustomization cycle"},
		"self-include": {files: kust("resources:\n- .\n"), want: "kustomization cycle"},
		"big-file": {files: map[string]string{
			"kustomization.yaml": "resources:\n- big.yaml\n",
			"big.yaml":           "# " + strings.Repeat("padding ", 50<<20/8) + "\n",
		}, want: "over the 10485760-byte limit"},
	}
}

func TestSyncHostileOverlaysFailOnlyTheirSite(t *testing.T) {
	g := NewWithT(t)
	addr, connections := gitserver.CountingListener(t)
	outside := t.TempDir()
	outsideFile := filepath.Join(outside, "secret.yaml")
	const outsideMarker = "OUTSIDE-THE-CHECKOUT-7f3a"
	g.Expect(os.WriteFile(outsideFile, []byte("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: "+
		strings.ToLower(outsideMarker)+"\ndata:\n  leaked: "+outsideMarker+"\n"), 0o644)).To(Succeed())
	execMarker := filepath.Join(outside, "exec-ran")
	execScript := filepath.Join(outside, "touch.sh")
	g.Expect(os.WriteFile(execScript, []byte("#!/bin/sh\ntouch "+execMarker+"\ncat\n"), 0o755)).To(Succeed())
	helmMarker := filepath.Join(outside, "helm-ran")
	fakeBin := filepath.Join(outside, "bin")
	g.Expect(os.MkdirAll(fakeBin, 0o755)).To(Succeed())
	g.Expect(os.WriteFile(filepath.Join(fakeBin, "helm"), []byte("#!/bin/sh\ntouch "+helmMarker+"\n"),
		0o755)).To(Succeed())
	t.Setenv("PATH", fakeBin+string(os.PathListSeparator)+os.Getenv("PATH"))

	cases := hostileCases(addr, outsideFile, execScript)
	for name, c := range hostileChartCases(t, addr) {
		cases[name] = c
	}
	files := baseRepo()
	for name := range cases {
		files["overlays/"+name+"/kustomization.yaml"] = "resources:\n- ../../base\nnamePrefix: " + name + "-\n"
	}
	files["overlays/cycle-b/kustomization.yaml"] = "resources:\n- ../../base\nnamePrefix: cycle-b-\n"
	e := newSyncEnv(t, files)
	first := e.sync(t, nil)
	before := map[string]string{}
	for _, s := range first.Sites {
		g.Expect(s.Ready).To(BeTrue(), "first sync, site %s: %s", s.Name, s.Message)
		before[s.Name] = e.rendered(t, s.Name)
	}

	wt := e.srv.Clone(t, e.repo)
	for name, c := range cases {
		wt.Remove("overlays/" + name)
		for p, content := range c.files {
			wt.Write("overlays/"+name+"/"+p, content)
		}
		for p, target := range c.symlinks {
			wt.Symlink(target, "overlays/"+name+"/"+p)
		}
	}
	wt.Write("overlays/cycle-b/kustomization.yaml", "resources:\n- ../cycle\n")
	wt.Write("overlays/dev/site-values.yaml", siteValues(2, "nginx:1.27"))
	broken := wt.Commit("break many overlays, change dev")
	wt.Push()
	var sites []string
	for _, s := range first.Sites {
		sites = append(sites, s.Name)
	}
	e.opts.Sites = append(sites, "../x")

	res := e.sync(t, &first)

	g.Expect(res.SourceRevision).To(Equal(broken))
	log := e.srv.Log(t, e.repo, DefaultTargetBranch)
	g.Expect(log[0].Trailer(TrailerSourceRevision)).To(Equal(broken))
	g.Expect(log[0].Trailer(TrailerSites)).To(Equal("dev"))
	g.Expect(site(t, res, "dev").Ready).To(BeTrue())
	g.Expect(e.rendered(t, "dev")).To(ContainSubstring("nginx:1.27"))
	g.Expect(site(t, res, "../x").Ready).To(BeFalse())
	g.Expect(site(t, res, "../x").Message).To(ContainSubstring("invalid site name"))
	g.Expect(site(t, res, "../x").Reason).To(Equal(FailureInvalidName))
	for name, c := range cases {
		s := site(t, res, name)
		t.Logf("%s: %s: %s", name, s.Reason, s.Message)
		g.Expect(s.Ready).To(BeFalse(), "site %s should fail", name)
		g.Expect(s.Reason).To(BeElementOf(FailureGuardRefused, FailureKustomize, FailurePlaintextSecret), "site %s", name)
		if strings.Contains(c.want, "plaintext") {
			g.Expect(s.Reason).To(Equal(FailurePlaintextSecret), "site %s", name)
		}
		g.Expect(s.Message).To(ContainSubstring(c.want), "site %s", name)
		g.Expect(s.LastRenderedRevision).To(Equal(first.SourceRevision), "site %s keeps its last good render", name)
		g.Expect(e.rendered(t, name)).To(Equal(before[name]), "site %s output must stay untouched", name)
	}
	for _, s := range res.Sites {
		g.Expect(s.Message).NotTo(ContainSubstring(outsideMarker))
	}
	for _, f := range e.srv.Files(t, e.repo, DefaultTargetBranch) {
		content, _ := e.srv.ReadFile(t, e.repo, DefaultTargetBranch, f)
		g.Expect(content).NotTo(ContainSubstring(outsideMarker), f)
	}
	g.Expect(connections.Load()).To(BeZero(), "no network connection may be made")
	g.Expect(execMarker).NotTo(BeAnExistingFile(), "no exec function may run")
	g.Expect(helmMarker).NotTo(BeAnExistingFile(), "helm may not run")
}
