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
	"path"
	"sort"
	"strings"
	"text/template"

	"github.com/siteops/siteops/gitops/internal/permanent"
	"github.com/siteops/siteops/gitops/provenance"
)

// SitePath renders pathTemplate (default "{{.Site}}") for site: the folder of the site on the target branch.
// The result must be a clean relative path inside the branch, without "." or ".." or ".git" segments.
func SitePath(pathTemplate, site string) (string, error) {
	f, err := sitePathFunc(pathTemplate)
	if err != nil {
		return "", err
	}
	return f(site)
}

// sitePathFunc parses pathTemplate once and returns SitePath for it.
func sitePathFunc(pathTemplate string) (func(site string) (string, error), error) {
	if pathTemplate == "" {
		pathTemplate = DefaultPathTemplate
	}
	tmpl, err := template.New("path").Option("missingkey=error").Parse(pathTemplate)
	if err != nil {
		return nil, permanent.Error(fmt.Errorf("invalid path template %q: %w", pathTemplate, err))
	}
	return func(site string) (string, error) { return sitePath(tmpl, pathTemplate, site) }, nil
}

func sitePath(tmpl *template.Template, pathTemplate, site string) (string, error) {
	var b strings.Builder
	if err := tmpl.Execute(&b, struct{ Site string }{Site: site}); err != nil {
		return "", permanent.Error(fmt.Errorf("path template %q: %w", pathTemplate, err))
	}
	p := strings.Trim(b.String(), "/")
	if p == "" || path.Clean(p) != p {
		return "", permanent.Error(fmt.Errorf("path template %q gives %q for site %q: not a clean relative path",
			pathTemplate, b.String(), site))
	}
	for _, seg := range strings.Split(p, "/") {
		if seg == "." || seg == ".." || strings.EqualFold(seg, ".git") {
			return "", permanent.Error(fmt.Errorf("path template %q gives %q for site %q: %q is not allowed", pathTemplate, p,
				site, seg))
		}
	}
	if top, _, _ := strings.Cut(p, "/"); top == path.Dir(provenance.AttestationDir) {
		return "", permanent.Error(fmt.Errorf("path template %q gives %q for site %q: %s holds the attestations",
			pathTemplate, p, site, top))
	}
	return p, nil
}

// sitePaths maps each site to its folder and refuses templates that give two sites the same or nested folders.
func sitePaths(pathTemplate string, sites []string) (map[string]string, error) {
	out := make(map[string]string, len(sites))
	if len(sites) == 0 {
		return out, nil
	}
	owner := map[string]string{}
	pathOf, err := sitePathFunc(pathTemplate)
	if err != nil {
		return nil, err
	}
	for _, s := range sites {
		p, err := pathOf(s)
		if err != nil {
			return nil, err
		}
		if other, dup := owner[p]; dup {
			return nil, permanent.Error(fmt.Errorf("path template %q gives sites %q and %q the same folder %q", pathTemplate,
				other, s, p))
		}
		owner[p] = s
		out[s] = p
	}
	paths := make([]string, 0, len(owner))
	for p := range owner {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	for i := 1; i < len(paths); i++ {
		if strings.HasPrefix(paths[i], paths[i-1]+"/") {
			return nil, permanent.Error(fmt.Errorf("path template %q nests site %q inside site %q", pathTemplate,
				owner[paths[i]], owner[paths[i-1]]))
		}
	}
	return out, nil
}
