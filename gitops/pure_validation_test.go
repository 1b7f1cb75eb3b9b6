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
	kusttypes "sigs.k8s.io/kustomize/api/types"

	"github.com/siteops/siteops/gitops/guard"
	"github.com/siteops/siteops/gitops/render"
)

func TestValidateSiteName(t *testing.T) {
	for name, ok := range map[string]bool{
		"dev": true, "prod-eu.1": true, "Site_2": true,
		"": false, "../x": false, "..": false, "a/b": false, ".hidden": false, "a..b": false, `a\b`: false,
		"with space": false, "-dash": false,
	} {
		g := NewWithT(t)
		if ok {
			g.Expect(guard.ValidateSiteName(name)).To(Succeed(), name)
		} else {
			g.Expect(guard.ValidateSiteName(name)).NotTo(Succeed(), name)
		}
	}
}

func TestSitePaths(t *testing.T) {
	for _, tc := range []struct {
		tmpl  string
		sites []string
		want  map[string]string
		err   string
	}{
		{"", []string{"a", "b"}, map[string]string{"a": "a", "b": "b"}, ""},
		{"sites/{{.Site}}/k8s", []string{"a"}, map[string]string{"a": "sites/a/k8s"}, ""},
		{"/{{.Site}}/", []string{"a"}, map[string]string{"a": "a"}, ""},
		{"all", []string{"a", "b"}, nil, "the same folder"},
		{"../{{.Site}}", []string{"a"}, nil, "not allowed"},
		{".git/{{.Site}}", []string{"a"}, nil, "not allowed"},
		{"x//{{.Site}}", []string{"a"}, nil, "not a clean relative path"},
		{"{{.Nope}}", []string{"a"}, nil, "path template"},
		{"{{.Site", []string{"a"}, nil, "invalid path template"},
	} {
		g := NewWithT(t)
		got, err := sitePaths(tc.tmpl, tc.sites)
		if tc.err != "" {
			g.Expect(err).To(MatchError(ContainSubstring(tc.err)), tc.tmpl)
			g.Expect(IsPermanent(err)).To(BeTrue())
			continue
		}
		g.Expect(err).NotTo(HaveOccurred(), tc.tmpl)
		g.Expect(got).To(Equal(tc.want))
	}
}

func TestParseImage(t *testing.T) {
	for in, want := range map[string]kusttypes.Image{
		"manager=ghcr.io/siteops/manager:v1": {Name: "manager", NewName: "ghcr.io/siteops/manager", NewTag: "v1"},
		"manager=localhost:5000/manager":     {Name: "manager", NewName: "localhost:5000/manager"},
		"manager=localhost:5000/manager:v2":  {Name: "manager", NewName: "localhost:5000/manager", NewTag: "v2"},
		"nginx=nginx@sha256:abc":             {Name: "nginx", NewName: "nginx", Digest: "sha256:abc"},
		"nginx:1.27":                         {Name: "nginx", NewTag: "1.27"},
	} {
		g := NewWithT(t)
		got, err := render.ParseImage(in)
		g.Expect(err).NotTo(HaveOccurred(), in)
		g.Expect(got).To(Equal(want), in)
	}
	for _, bad := range []string{"", "=x", "nginx", "nginx="} {
		_, err := render.ParseImage(bad)
		NewWithT(t).Expect(err).To(HaveOccurred(), bad)
	}
}
