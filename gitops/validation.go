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
	"context"
	"errors"
	"fmt"
	"path"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/siteops/siteops/gitops/internal/permanent"
	"github.com/siteops/siteops/gitops/internal/tree"
	"github.com/siteops/siteops/gitops/validate"
)

// ValidationMode says what an invalid rendered object does to its site.
type ValidationMode string

// The validation modes.
const (
	// ValidationEnforce fails the site: its last good output stays on the target branch. The default.
	ValidationEnforce ValidationMode = "Enforce"
	// ValidationWarn publishes the site and reports each problem as a warning.
	ValidationWarn ValidationMode = "Warn"
	// ValidationOff does not check the rendered objects.
	ValidationOff ValidationMode = "Off"
)

// DefaultCRDPath is the folder of the source searched for CustomResourceDefinitions besides those named.
const DefaultCRDPath = "base"

// ValidationOptions says what every rendered object is checked against before it is published: the OpenAPI
// schemas of a Kubernetes version, and the CRDs of the source (in the output itself, in base/, and in
// CRDPaths), their CEL rules included.
type ValidationOptions struct {
	Mode ValidationMode // "" = Enforce
	// KubernetesVersion is the release the sites run, as "1.37" or "v1.37.2"; "" = the newest release
	// siteops carries the schemas of (validate.DefaultKubernetesVersion).
	KubernetesVersion string
	// SiteKubernetesVersions overrides KubernetesVersion per site name.
	SiteKubernetesVersions map[string]string
	// CRDPaths are files or folders of the source with CustomResourceDefinitions, searched besides base/.
	CRDPaths []string
}

// siteVersion is the Kubernetes version site runs, as the options give it ("" = the newest siteops carries).
func (o ValidationOptions) siteVersion(site string) string {
	if v := o.SiteKubernetesVersions[site]; v != "" {
		return v
	}
	return o.KubernetesVersion
}

// kubeVersion is the Kubernetes version site runs, for Helm's .Capabilities: siteVersion, or the newest release
// siteops carries the schemas of.
func (o ValidationOptions) kubeVersion(site string) string {
	if v := o.siteVersion(site); v != "" {
		return v
	}
	return validate.DefaultKubernetesVersion()
}

// checker validates the rendered output of each site of one checkout.
type checker struct {
	schemas  *validate.Schemas
	crds     *validate.CRDs
	warnings []string // of the CRDs that did not compile, for every site
	o        ValidationOptions
}

// newChecker reads the CRDs of t and checks o; nil when validation is off. A named CRD path that does not
// exist, a bad mode or a bad version is a permanent error.
func newChecker(schemas *validate.Schemas, t tree.FS, o ValidationOptions) (*checker, error) {
	switch o.Mode {
	case "", ValidationEnforce, ValidationWarn:
	case ValidationOff:
		return nil, nil
	default:
		return nil, permanent.Error(fmt.Errorf("validation mode %q: want Enforce, Warn or Off", o.Mode))
	}
	for _, v := range append([]string{o.KubernetesVersion}, mapValues(o.SiteKubernetesVersions)...) {
		if v == "" {
			continue
		}
		if _, err := validate.ParseKubernetesVersion(v); err != nil {
			return nil, permanent.Error(err)
		}
	}
	var docs [][]byte
	for i, p := range append([]string{DefaultCRDPath}, o.CRDPaths...) {
		found, err := yamlDocs(t, p, i > 0, "CRD")
		if err != nil {
			return nil, err
		}
		docs = append(docs, found...)
	}
	c := &checker{schemas: schemas, o: o}
	c.crds, c.warnings = schemas.CRDs(docs)
	return c, nil
}

// check validates the objects of a site's output, leaving them as rendered; the error fails the site
// (Enforce), or its problems come back as warnings (Warn).
func (c *checker) check(ctx context.Context, site string, objs []*unstructured.Unstructured) ([]string, error) {
	warnings, err := c.schemas.Validate(ctx, objs, validate.Options{KubernetesVersion: c.o.siteVersion(site),
		CRDs: c.crds})
	warnings = append(append([]string(nil), c.warnings...), warnings...)
	var invalid *validate.Error
	if errors.As(err, &invalid) && c.o.Mode == ValidationWarn {
		for _, p := range invalid.Problems {
			warnings = append(warnings, "invalid: "+p.String())
		}
		return warnings, nil
	}
	if err != nil {
		return warnings, failed(FailureValidation, err)
	}
	return warnings, nil
}

// yamlDocs reads the YAML documents of the .yaml and .yml files at p (a file, or a folder walked without
// following symlinks). A missing p is an error when named is set, and nothing otherwise; what names the
// path's use in messages ("CRD").
func yamlDocs(t tree.FS, p string, named bool, what string) ([][]byte, error) {
	resolved, e, err := tree.Resolve(t, p)
	if err != nil {
		return nil, permanent.Error(fmt.Errorf("%s path %s: %w", what, p, err))
	}
	switch e.Kind {
	case tree.Missing:
		if named {
			return nil, permanent.Error(fmt.Errorf("%s path %s does not exist in the source", what, p))
		}
		return nil, nil
	case tree.File:
		b, err := t.ReadFile(resolved)
		if err != nil {
			return nil, fmt.Errorf("reading %s: %w", p, err)
		}
		return splitDocs(b), nil
	case tree.Dir:
	default:
		return nil, nil
	}
	names, err := t.ReadDir(resolved)
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", p, err)
	}
	var out [][]byte
	for _, n := range names {
		q := path.Join(resolved, n)
		e, err := t.Lstat(q)
		if err != nil {
			return nil, fmt.Errorf("reading %s: %w", q, err)
		}
		if e.Kind == tree.File && !strings.HasSuffix(n, ".yaml") && !strings.HasSuffix(n, ".yml") {
			continue
		}
		if e.Kind != tree.File && e.Kind != tree.Dir {
			continue
		}
		docs, err := yamlDocs(t, q, false, what)
		if err != nil {
			return nil, err
		}
		out = append(out, docs...)
	}
	return out, nil
}

// splitDocs splits a YAML stream at its document separators.
func splitDocs(b []byte) [][]byte {
	var out [][]byte
	for _, d := range strings.Split("\n"+string(b), "\n---") {
		if strings.TrimSpace(d) != "" {
			out = append(out, []byte(d))
		}
	}
	return out
}

func mapValues(m map[string]string) []string {
	out := make([]string, 0, len(m))
	for _, v := range m {
		out = append(out, v)
	}
	return out
}
