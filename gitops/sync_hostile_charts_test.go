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
	"archive/tar"
	"bytes"
	"compress/gzip"
	"fmt"
	"strings"
	"testing"
)

// chartCase is a site whose kustomization renders chart "c" from charts/c, with the given templates (name →
// content) and extra files (path under the site folder → content).
func chartCase(templates, extra map[string]string) map[string]string {
	files := map[string]string{
		"kustomization.yaml":  "resources:\n- ../../base\nhelmCharts:\n- name: c\n  releaseName: c\n",
		"charts/c/Chart.yaml": "apiVersion: v2\nname: c\nversion: 0.1.0\n",
	}
	for name, content := range templates {
		files["charts/c/templates/"+name] = content
	}
	for p, content := range extra {
		files[p] = content
	}
	return files
}

// tgz is a gzipped tar archive of the entries, in the order given as name, content pairs.
func tgz(t *testing.T, entries ...string) string {
	t.Helper()
	var buf bytes.Buffer
	gz := gzip.NewWriter(&buf)
	tw := tar.NewWriter(gz)
	for i := 0; i+1 < len(entries); i += 2 {
		hdr := &tar.Header{Name: entries[i], Mode: 0o644, Size: int64(len(entries[i+1])), Typeflag: tar.TypeReg}
		if err := tw.WriteHeader(hdr); err != nil {
			t.Fatal(err)
		}
		if _, err := tw.Write([]byte(entries[i+1])); err != nil {
			t.Fatal(err)
		}
	}
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	if err := gz.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.String()
}

// hostileChartCases are charts that must fail their site, and nothing else, without a connection or a process:
// host is the counting listener's address.
func hostileChartCases(t *testing.T, addr string) map[string]hostileCase {
	host := strings.Split(addr, ":")[0]
	bomb := tgz(t, "sub/Chart.yaml", "apiVersion: v2\nname: sub\nversion: 0.1.0\n",
		"sub/templates/big.yaml", strings.Repeat("# padding\n", 12<<20))
	return map[string]hostileCase{
		"chart-dns": {files: chartCase(map[string]string{"cm.yaml": fmt.Sprintf(
			"kind: ConfigMap\ndata:\n  ip: {{ getHostByName %q | quote }}\n", host)}, nil),
			want: "calls getHostByName, which would make renders depend on DNS"},
		"chart-lookup": {files: chartCase(map[string]string{"cm.yaml": `{{- if not (lookup "v1" "Namespace" "" ` +
			`"kube-system") }}{{ fail "lookup found nothing" }}{{ end }}`}, nil),
			want: "lookup found nothing"},
		"chart-files-dotdot": {files: chartCase(map[string]string{"cm.yaml": `{{- if .Files.Get ` +
			`"../../kustomization.yaml" }}{{ fail "read outside the chart" }}{{ else }}{{ fail ` +
			`"the chart reads only itself" }}{{ end }}`}, nil),
			want: "the chart reads only itself"},
		"chart-symlink": {files: chartCase(map[string]string{"cm.yaml": "kind: ConfigMap\n"}, nil),
			symlinks: map[string]string{"charts/c/files/key": "../../../../../base/kustomization.yaml"},
			want:     "is a symlink: a chart may hold none"},
		"chart-archive-escape": {files: chartCase(nil, map[string]string{"charts/c/charts/sub-0.1.0.tgz": tgz(t,
			"sub/Chart.yaml", "apiVersion: v2\nname: sub\nversion: 0.1.0\n", "../../escape.yaml", "kind: X\n")}),
			want: "chart illegally references parent directory"},
		"chart-tar-bomb": {files: chartCase(nil, map[string]string{"charts/c/charts/sub-0.1.0.tgz": bomb}),
			want: "decompressed chart is larger than the maximum size"},
		"chart-huge-values": {files: chartCase(map[string]string{"cm.yaml": "kind: ConfigMap\n"},
			map[string]string{"kustomization.yaml": "resources:\n- ../../base\nhelmCharts:\n- name: c\n" +
				"  valuesFile: values.yaml\n", "values.yaml": "a: " + strings.Repeat("x", 60<<20) + "\n"}),
			want: "over the 10485760-byte limit"},
		"chart-remote-dependency": {files: chartCase(map[string]string{"cm.yaml": "kind: ConfigMap\n"},
			map[string]string{"charts/c/Chart.yaml": fmt.Sprintf("apiVersion: v2\nname: c\nversion: 0.1.0\n"+
				"dependencies:\n- name: dep\n  version: 1.0.0\n  repository: http://%s/charts\n", addr)}),
			want: "missing in charts/ directory: dep"},
		"chart-remote-not-vendored": {files: map[string]string{"kustomization.yaml": fmt.Sprintf(
			"helmCharts:\n- name: web\n  repo: oci://%s/charts\n  version: 1.0.0\n", addr)},
			want: "siteops does not fetch charts"},
		"chart-random": {files: chartCase(map[string]string{"s.yaml": "kind: ConfigMap\ndata:\n  p: " +
			"{{ randAlphaNum 12 }}\n"}, nil), want: "calls randAlphaNum, which would make renders nondeterministic"},
		"chart-plaintext-secret": {files: chartCase(map[string]string{"s.yaml": "apiVersion: v1\nkind: Secret\n" +
			"metadata:\n  name: db\nstringData:\n  password: hunter2\n"}, nil), want: "plaintext stringData"},
	}
}
