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

import "sigs.k8s.io/kustomize/api/types"

// Spec is one entry of a kustomization's helmCharts, kustomize's own type, with its helmGlobals and the contents
// of the values files it names, which the caller reads (the renderer never touches the disk).
type Spec struct {
	// Chart is the helmCharts entry: name, version, repo, releaseName, namespace, values and flags.
	Chart types.HelmChart
	// Globals is the kustomization's helmGlobals; ChartHome tells the caller where the chart's files live.
	Globals types.HelmGlobals
	// ValuesFile is the contents of Chart.ValuesFile; nil means the chart's own values.yaml.
	ValuesFile []byte
	// AdditionalValuesFiles are the contents of Chart.AdditionalValuesFiles, in the same order.
	AdditionalValuesFiles [][]byte
}

// Value merge modes of a helmCharts entry's valuesMerge, with kustomize's semantics.
const (
	// MergeOverride lays valuesInline over the values file: inline wins. It is the default.
	MergeOverride = "override"
	// MergeMerge lays the values file over valuesInline: the file wins.
	MergeMerge = "merge"
	// MergeReplace uses valuesInline alone in place of the values file.
	MergeReplace = "replace"
)

// Defaults helm template uses when a release name or namespace is not given.
const (
	defaultReleaseName = "release-name"
	defaultNamespace   = "default"
)

func releaseName(s Spec) string {
	if s.Chart.ReleaseName != "" {
		return s.Chart.ReleaseName
	}
	return defaultReleaseName
}

func namespace(s Spec) string {
	if s.Chart.Namespace != "" {
		return s.Chart.Namespace
	}
	return defaultNamespace
}
