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

package render

import (
	"fmt"
	"path"
	"strings"

	"sigs.k8s.io/kustomize/api/provider"
	"sigs.k8s.io/kustomize/api/resmap"
	kusttypes "sigs.k8s.io/kustomize/api/types"
	"sigs.k8s.io/yaml"

	"github.com/siteops/siteops/gitops/guard"
	"github.com/siteops/siteops/gitops/helmchart"
	"github.com/siteops/siteops/gitops/helmvalues"
)

// KeepReleaseAnnotation on a HelmRelease, with the value KeepRelease, keeps it a HelmRelease in the rendered
// output (for a cluster that runs a Helm controller) even when its chart is vendored.
const (
	KeepReleaseAnnotation = "siteops.dev/helm-release"
	KeepRelease           = "keep"
)

// release is what inflating a HelmRelease needs of it.
type release struct {
	id, chart, version, name, namespace string
	crds                                bool
	values                              map[string]any
}

// inflateReleases replaces each HelmRelease of m whose chart is vendored (in.ReleaseCharts) by the objects
// `helm template -n <targetNamespace> <releaseName> --include-crds` renders from it, as Decapod's pipeline does.
// A release whose chart is not vendored, or that asks to be kept, stays a HelmRelease.
func inflateReleases(m resmap.ResMap, in *guard.Inputs, r *helmchart.Renderer, kubeVersion string) error {
	if len(in.ReleaseCharts) == 0 {
		return nil
	}
	factory := resmap.NewFactory(provider.NewDepProvider().GetResourceFactory())
	for _, res := range m.Resources() {
		obj, err := res.Map()
		if err != nil || !helmvalues.IsHelmRelease(obj) || res.GetAnnotations()[KeepReleaseAnnotation] == KeepRelease {
			continue
		}
		rel, err := releaseOf(obj)
		if err != nil {
			return err
		}
		files, err := vendoredChart(in, rel)
		if err != nil {
			return err
		}
		if files == nil {
			continue // not vendored: the cluster's Helm controller installs it
		}
		spec := helmchart.Spec{Chart: kusttypes.HelmChart{Name: rel.chart, ReleaseName: rel.name,
			Namespace: rel.namespace, IncludeCRDs: rel.crds, ValuesInline: rel.values}}
		out, err := r.Render(files, spec, kubeVersion)
		if err != nil {
			return fmt.Errorf("HelmRelease %s: %w", rel.id, err)
		}
		objs, err := factory.NewResMapFromBytes(out)
		if err != nil {
			return fmt.Errorf("HelmRelease %s: reading what the chart rendered: %w", rel.id, err)
		}
		if err := m.Remove(res.CurId()); err != nil {
			return fmt.Errorf("HelmRelease %s: %w", rel.id, err)
		}
		if err := m.AppendAll(objs); err != nil {
			return fmt.Errorf("HelmRelease %s: %w", rel.id, err)
		}
	}
	return nil
}

// releaseOf reads a HelmRelease as helm template would be run on it: Flux v2's defaults (release
// [<targetNamespace>-]<name>, CRDs unless install.crds is Skip), or the Helm Operator's for helm.fluxcd.io/v1
// (release <namespace>-<name>, CRDs unless skipCRDs). Fields that need a cluster are refused.
func releaseOf(obj map[string]any) (release, error) {
	str := func(m map[string]any, keys ...string) string {
		for _, k := range keys[:len(keys)-1] {
			m, _ = m[k].(map[string]any)
		}
		s, _ := m[keys[len(keys)-1]].(string)
		return s
	}
	md, _ := obj["metadata"].(map[string]any)
	spec, _ := obj["spec"].(map[string]any)
	target := str(spec, "targetNamespace")
	rel := release{namespace: target, name: str(spec, "releaseName"), crds: true}
	ns, name := str(md, "namespace"), str(md, "name")
	rel.id = name
	if ns != "" {
		rel.id = ns + "/" + name
	}
	if rel.namespace == "" {
		rel.namespace = ns
	}
	rel.values, _ = spec["values"].(map[string]any)
	if _, ok := spec["valuesFrom"]; ok {
		return rel, fmt.Errorf("HelmRelease %s: valuesFrom reads the cluster, so siteops cannot inflate it: move the "+
			"values into spec.values, or keep it a HelmRelease (annotation %s: %s)", rel.id, KeepReleaseAnnotation,
			KeepRelease)
	}
	if obj["apiVersion"] == helmvalues.HelmOperatorAPIVersion {
		rel.chart, rel.version = str(spec, "chart", "name"), str(spec, "chart", "version")
		if rel.name == "" {
			rel.name = ns + "-" + name
		}
		rel.crds = spec["skipCRDs"] != true
		return rel, nil
	}
	rel.chart, rel.version = str(spec, "chart", "spec", "chart"), str(spec, "chart", "spec", "version")
	if rel.name == "" {
		rel.name = name
		if target != "" {
			rel.name = target + "-" + name
		}
	}
	rel.crds = str(spec, "install", "crds") != "Skip"
	chartSpec, _ := spec["chart"].(map[string]any)
	chartSpec, _ = chartSpec["spec"].(map[string]any)
	for _, f := range []struct {
		name    string
		present bool
	}{
		{"spec.postRenderers", spec["postRenderers"] != nil},
		{"spec.chart.spec.valuesFiles", chartSpec["valuesFiles"] != nil},
	} {
		if f.present {
			return rel, fmt.Errorf("HelmRelease %s: %s is not inflated: set spec.values, or keep it a HelmRelease "+
				"(annotation %s: %s)", rel.id, f.name, KeepReleaseAnnotation, KeepRelease)
		}
	}
	return rel, nil
}

// vendoredChart is the files of the vendored chart of rel, at its version: nil when no chart of that name is
// vendored (the release stays), an error when only other versions are.
func vendoredChart(in *guard.Inputs, rel release) (map[string][]byte, error) {
	var found []string
	for _, c := range in.ReleaseCharts {
		if c.Name != rel.chart {
			continue
		}
		var meta struct{ Version string }
		if err := yaml.Unmarshal(in.Files[path.Join(c.Dir, "Chart.yaml")], &meta); err != nil {
			return nil, fmt.Errorf("HelmRelease %s: %s/Chart.yaml: %w", rel.id, c.Dir, err)
		}
		if rel.version == "" || meta.Version == rel.version {
			return chartFiles(in, c.Dir), nil
		}
		found = append(found, fmt.Sprintf("%s holds %s", c.Dir, meta.Version))
	}
	if len(found) == 0 {
		return nil, nil
	}
	return nil, fmt.Errorf("HelmRelease %s: chart %s %s is not vendored (%s): vendor it at %s/%s-%s/%s",
		rel.id, rel.chart, rel.version, strings.Join(found, ", "), guard.ReleaseChartsDir, rel.chart, rel.version,
		rel.chart)
}
