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
	"encoding/json"
	"fmt"

	chartv2 "helm.sh/helm/v4/pkg/chart/v2"
	"helm.sh/helm/v4/pkg/chart/v2/loader"
	"sigs.k8s.io/yaml"
)

// MaxValuesBytes is the most values input, files and inline together, a render accepts.
const MaxValuesBytes = 4 << 20

// userValues builds the values the user gives on top of the chart's defaults, as kustomize does: the values file
// (or the chart's values.yaml) combined with valuesInline by valuesMerge, then each additional values file over it.
func userValues(ch *chartv2.Chart, s Spec) (map[string]any, error) {
	inline, err := json.Marshal(s.Chart.ValuesInline)
	if err != nil {
		return nil, fmt.Errorf("helm chart %q: valuesInline: %w", s.Chart.Name, err)
	}
	size := len(s.ValuesFile) + len(inline)
	for _, f := range s.AdditionalValuesFiles {
		size += len(f)
	}
	if size > MaxValuesBytes {
		return nil, fmt.Errorf("helm chart %q: values are %d bytes, more than the %d allowed",
			s.Chart.Name, size, MaxValuesBytes)
	}
	base, err := parseValues(s.ValuesFile, "valuesFile")
	if err != nil {
		return nil, fmt.Errorf("helm chart %q: %w", s.Chart.Name, err)
	}
	if len(s.Chart.ValuesInline) > 0 {
		if s.ValuesFile == nil {
			base = copyMap(ch.Values)
		}
		inlineMap := copyMap(s.Chart.ValuesInline)
		switch s.Chart.ValuesMerge {
		case "", MergeOverride:
			base = loader.MergeMaps(base, inlineMap)
		case MergeMerge:
			base = loader.MergeMaps(inlineMap, base)
		case MergeReplace:
			base = inlineMap
		default:
			return nil, fmt.Errorf("helm chart %q: valuesMerge %q is not one of override, merge, replace",
				s.Chart.Name, s.Chart.ValuesMerge)
		}
	}
	for i, f := range s.AdditionalValuesFiles {
		add, err := parseValues(f, fmt.Sprintf("additionalValuesFiles[%d]", i))
		if err != nil {
			return nil, fmt.Errorf("helm chart %q: %w", s.Chart.Name, err)
		}
		base = loader.MergeMaps(base, add)
	}
	return base, nil
}

func parseValues(b []byte, what string) (map[string]any, error) {
	m := map[string]any{}
	if len(b) == 0 {
		return m, nil
	}
	if err := yaml.Unmarshal(b, &m); err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	if m == nil {
		m = map[string]any{}
	}
	return m, nil
}

// copyMap deep-copies a values map through JSON so merging never writes into the chart's or the spec's maps.
func copyMap(m map[string]any) map[string]any {
	out := map[string]any{}
	b, err := json.Marshal(m)
	if err != nil {
		return out
	}
	_ = json.Unmarshal(b, &out)
	return out
}
