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

package helmchart

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"helm.sh/helm/v4/pkg/chart/common"
	"helm.sh/helm/v4/pkg/chart/common/util"
	chartv2 "helm.sh/helm/v4/pkg/chart/v2"
	chartutil "helm.sh/helm/v4/pkg/chart/v2/util"
	"helm.sh/helm/v4/pkg/engine"
	release "helm.sh/helm/v4/pkg/release/v1"
	releaseutil "helm.sh/helm/v4/pkg/release/v1/util"
)

// render runs Helm's engine in client-only mode (no cluster: lookup answers empty; DNS off) and writes the stream.
func render(ch *chartv2.Chart, vals map[string]any, spec Spec, kubeVersion string) ([]byte, error) {
	caps, err := capabilities(kubeVersion, spec.Chart.ApiVersions)
	if err != nil {
		return nil, fmt.Errorf("helm chart %q: %w", spec.Chart.Name, err)
	}
	if err := installable(ch, vals, caps); err != nil {
		return nil, fmt.Errorf("helm chart %q: %w", spec.Chart.Name, err)
	}
	opts := common.ReleaseOptions{Name: releaseName(spec), Namespace: namespace(spec), Revision: 1, IsInstall: true}
	// values.schema.json is not checked: Helm's validator would follow file: and http(s): $refs, off the memory.
	values, err := util.ToRenderValuesWithSchemaValidation(ch, vals, opts, caps, true)
	if err != nil {
		return nil, fmt.Errorf("helm chart %q: values: %w", spec.Chart.Name, err)
	}
	eng := engine.Engine{EnableDNS: false, CustomTemplateFuncs: refusingFuncs()}
	rendered, err := eng.RenderWithContext(context.Background(), ch, values)
	if err != nil {
		return nil, fmt.Errorf("helm chart %q: rendering: %w", spec.Chart.Name, err)
	}
	for name := range rendered {
		if strings.HasSuffix(name, "NOTES.txt") {
			delete(rendered, name)
		}
	}
	hooks, manifests, err := releaseutil.SortManifests(rendered, caps.APIVersions, releaseutil.InstallOrder)
	if err != nil {
		return nil, fmt.Errorf("helm chart %q: sorting manifests: %w", spec.Chart.Name, err)
	}
	var b strings.Builder
	if spec.Chart.IncludeCRDs {
		for _, crd := range ch.CRDObjects() {
			fmt.Fprintf(&b, "---\n# Source: %s\n%s\n", crd.Filename, string(crd.File.Data))
		}
	}
	for _, m := range manifests {
		fmt.Fprintf(&b, "---\n# Source: %s\n%s\n", m.Name, m.Content)
	}
	if !spec.Chart.SkipHooks {
		for _, h := range hooks {
			if spec.Chart.SkipTests && slices.Contains(h.Events, release.HookTest) {
				continue
			}
			fmt.Fprintf(&b, "---\n# Source: %s\n%s\n", h.Path, h.Manifest)
		}
	}
	return []byte(b.String()), nil
}

// installable makes the checks `helm template` makes before it renders, in its order: an application chart, every
// dependency of Chart.yaml in charts/, the chart's kubeVersion range met; then it drops the dependencies that
// their condition or tags disable and imports their values, as Helm's install does.
func installable(ch *chartv2.Chart, vals map[string]any, caps *common.Capabilities) error {
	switch ch.Metadata.Type {
	case "", "application":
	default:
		return fmt.Errorf("%s charts are not installable", ch.Metadata.Type)
	}
	var missing []string
	for _, dep := range ch.Metadata.Dependencies {
		if !slices.ContainsFunc(ch.Dependencies(), func(c *chartv2.Chart) bool { return c.Name() == dep.Name }) {
			missing = append(missing, dep.Name)
		}
	}
	if len(missing) > 0 {
		return fmt.Errorf("found in Chart.yaml, but missing in charts/ directory: %s (vendor them there)",
			strings.Join(missing, ", "))
	}
	if err := chartutil.ProcessDependencies(ch, vals); err != nil {
		return fmt.Errorf("chart dependencies: %w", err)
	}
	if r := ch.Metadata.KubeVersion; r != "" && !chartutil.IsCompatibleRange(r, caps.KubeVersion.String()) {
		return fmt.Errorf("chart requires kubeVersion: %s which is incompatible with Kubernetes %s", r,
			caps.KubeVersion.Version)
	}
	return nil
}

// capabilities gives .Capabilities: the kube version (Helm's default when empty) and Helm's known API versions
// plus those the spec adds.
func capabilities(kubeVersion string, apiVersions []string) (*common.Capabilities, error) {
	caps := common.DefaultCapabilities.Copy()
	if kubeVersion != "" {
		kv, err := common.ParseKubeVersion(kubeVersion)
		if err != nil {
			return nil, fmt.Errorf("kubeVersion %q: %w", kubeVersion, err)
		}
		caps.KubeVersion = *kv
	}
	caps.APIVersions = append(slices.Clone(common.DefaultVersionSet), apiVersions...)
	return caps, nil
}
