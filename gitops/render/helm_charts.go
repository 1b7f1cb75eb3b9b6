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
	"bytes"
	"fmt"
	"path"
	"strings"

	"sigs.k8s.io/kustomize/api/konfig"
	kusttypes "sigs.k8s.io/kustomize/api/types"
	"sigs.k8s.io/kustomize/kyaml/kio"
	kyaml "sigs.k8s.io/kustomize/kyaml/yaml"
	"sigs.k8s.io/yaml"

	"github.com/siteops/siteops/gitops/guard"
	"github.com/siteops/siteops/gitops/helmchart"
)

// chartPrefix starts the name of the file that holds a chart's rendered objects beside its kustomization.
const chartPrefix = ".siteops-helm-"

// inflated is what the charts of one build add to the staged files: each kustomization that names charts,
// rewritten to list their rendered objects as resources, and the files holding those objects.
type inflated struct {
	kusts map[string][]byte
	files map[string][]byte
}

// chartFields are the parts of a kustomization the chart stage reads, with kustomize's own types.
type chartFields struct {
	HelmCharts  []map[string]any       `json:"helmCharts,omitempty"`
	HelmGlobals *kusttypes.HelmGlobals `json:"helmGlobals,omitempty"`
}

// inflateCharts renders every chart the guard passed, in process, as kustomize's HelmChartInflationGenerator
// would with the helm binary: the objects are marked as Helm's, so the namespace transformer leaves them as
// Helm rendered them. staged gives each kustomization's bytes as the build stages them so far.
func inflateCharts(in *guard.Inputs, staged func(kf string) []byte, r *helmchart.Renderer,
	kubeVersion string) (*inflated, error) {
	out := &inflated{kusts: map[string][]byte{}, files: map[string][]byte{}}
	if len(in.Charts) == 0 {
		return out, nil
	}
	byKust := map[string][]guard.Chart{}
	var order []string
	for _, c := range in.Charts {
		if _, seen := byKust[c.KustFile]; !seen {
			order = append(order, c.KustFile)
		}
		byKust[c.KustFile] = append(byKust[c.KustFile], c)
	}
	for _, kf := range order {
		var k chartFields
		if err := yaml.Unmarshal(staged(kf), &k); err != nil {
			return nil, fmt.Errorf("%s: %w", kf, err)
		}
		var globals kusttypes.HelmGlobals
		if k.HelmGlobals != nil {
			globals = *k.HelmGlobals
		}
		var names []string
		for _, c := range byKust[kf] {
			if c.Index >= len(k.HelmCharts) {
				return nil, fmt.Errorf("%s: helmCharts[%d] not found", kf, c.Index)
			}
			name, objs, err := inflateChart(in, kf, c, k.HelmCharts[c.Index], globals, r, kubeVersion)
			if err != nil {
				return nil, err
			}
			if len(objs) == 0 {
				continue
			}
			if _, clash := in.Files[path.Join(path.Dir(kf), name)]; clash {
				return nil, fmt.Errorf("%s: the checkout already has %s", kf, name)
			}
			out.files[path.Join(path.Dir(kf), name)] = objs
			names = append(names, name)
		}
		b, err := withoutCharts(staged(kf), names)
		if err != nil {
			return nil, fmt.Errorf("staging %s: %w", kf, err)
		}
		out.kusts[kf] = b
	}
	return out, nil
}

// inflateChart renders one helmCharts entry and returns the name of the file for its objects, and their YAML.
func inflateChart(in *guard.Inputs, kf string, c guard.Chart, entry map[string]any, globals kusttypes.HelmGlobals,
	r *helmchart.Renderer, kubeVersion string) (string, []byte, error) {
	at := fmt.Sprintf("%s: helmCharts[%d]", kf, c.Index)
	raw, err := yaml.Marshal(entry)
	if err != nil {
		return "", nil, fmt.Errorf("%s: %w", at, err)
	}
	spec := helmchart.Spec{Globals: globals}
	if err := yaml.UnmarshalStrict(raw, &spec.Chart); err != nil {
		return "", nil, fmt.Errorf("%s: %w", at, err)
	}
	if spec.Chart.Namespace == "" {
		spec.Chart.Namespace = c.Namespace
	}
	dir := path.Dir(kf)
	if f := spec.Chart.ValuesFile; f != "" {
		spec.ValuesFile = in.Files[path.Join(dir, f)]
	}
	for _, f := range spec.Chart.AdditionalValuesFiles {
		spec.AdditionalValuesFiles = append(spec.AdditionalValuesFiles, in.Files[path.Join(dir, f)])
	}
	stream, err := r.Render(chartFiles(in, c.Dir), spec, kubeVersion)
	if err != nil {
		return "", nil, fmt.Errorf("%s: %w", at, err)
	}
	objs, err := markHelmGenerated(stream)
	if err != nil {
		return "", nil, fmt.Errorf("%s %q: reading what the chart rendered: %w", at, spec.Chart.Name, err)
	}
	return fmt.Sprintf("%s%d-%s.yaml", chartPrefix, c.Index, spec.Chart.Name), objs, nil
}

// chartFiles are the guarded files below folder dir, by their path in it: a chart as Helm's loader takes it.
func chartFiles(in *guard.Inputs, dir string) map[string][]byte {
	files := map[string][]byte{}
	prefix := dir + "/"
	for p, b := range in.Files {
		if strings.HasPrefix(p, prefix) {
			files[strings.TrimPrefix(p, prefix)] = b
		}
	}
	return files
}

// markHelmGenerated annotates every object of a rendered stream as kustomize annotates what Helm generates
// (an annotation kustomize removes from its output). An empty stream stays empty.
func markHelmGenerated(stream []byte) ([]byte, error) {
	nodes, err := (&kio.ByteReader{Reader: bytes.NewReader(stream), OmitReaderAnnotations: true}).Read()
	if err != nil {
		return nil, err
	}
	if len(nodes) == 0 {
		return nil, nil
	}
	for _, n := range nodes {
		if err := n.PipeE(kyaml.SetAnnotation(konfig.HelmGeneratedAnnotation, "true")); err != nil {
			return nil, err
		}
	}
	var b bytes.Buffer
	if err := (kio.ByteWriter{Writer: &b}).Write(nodes); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// withoutCharts drops helmCharts and helmGlobals from a kustomization and lists the rendered files as resources.
func withoutCharts(content []byte, files []string) ([]byte, error) {
	node, err := kyaml.Parse(string(content))
	if err != nil {
		return nil, err
	}
	for _, f := range []string{"helmCharts", "helmGlobals"} {
		if err := node.PipeE(kyaml.Clear(f)); err != nil {
			return nil, err
		}
	}
	if len(files) > 0 {
		resources, err := node.Pipe(kyaml.LookupCreate(kyaml.SequenceNode, "resources"))
		if err != nil {
			return nil, err
		}
		for _, f := range files {
			resources.YNode().Content = append(resources.YNode().Content, kyaml.NewStringRNode(f).YNode())
		}
	}
	s, err := node.String()
	return []byte(s), err
}
