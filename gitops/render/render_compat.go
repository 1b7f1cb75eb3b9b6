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
	kyaml "sigs.k8s.io/kustomize/kyaml/yaml"
)

// Kustomize prints a warning to the process's stderr for each deprecated field it loads; siteops reports them
// per site instead (see walker), so compatKustomization rewrites the in-memory copy of a kustomization into an
// exactly equivalent form without the deprecated field where one exists:
//   - `bases:` is appended to `resources:` (what kustomize itself does when loading);
//   - `patchesStrategicMerge:` becomes the same builtin PatchStrategicMergeTransformer given first in
//     `transformers:`, which is the same step at the same place when no other builtin transformer field is set
//     in that kustomization (kustomize runs PatchStrategicMerge first, then the others, then `transformers:`).
//
// Other deprecated fields (commonLabels, imageTags, patchesJson6902, vars, and patchesStrategicMerge next to
// other transformer fields) are left as they are: they render unchanged and kustomize still prints its line.
// The digest is computed over the original bytes.
func compatKustomization(content []byte) []byte {
	node, err := kyaml.Parse(string(content))
	if err != nil {
		return content // kustomize reports it
	}
	changed := moveBases(node)
	changed = movePatchesStrategicMerge(node) || changed
	if !changed {
		return content
	}
	out, err := node.String()
	if err != nil {
		return content
	}
	return []byte(out)
}

func moveBases(node *kyaml.RNode) bool {
	bases := node.Field("bases")
	if bases == nil || bases.Value.YNode().Kind != kyaml.SequenceNode {
		return false
	}
	resources, err := node.Pipe(kyaml.LookupCreate(kyaml.SequenceNode, "resources"))
	if err != nil || resources.YNode().Kind != kyaml.SequenceNode {
		return false
	}
	resources.YNode().Content = append(resources.YNode().Content, bases.Value.YNode().Content...)
	_, err = node.Pipe(kyaml.Clear("bases"))
	return err == nil
}

// transformerFields are the kustomization fields configuring builtin transformers that run after
// PatchStrategicMerge and before `transformers:`.
func transformerFields() []string {
	return []string{
		"patches", "namespace", "namePrefix", "nameSuffix", "labels", "commonLabels", "commonAnnotations",
		"patchesJson6902", "replicas", "images", "imageTags", "replacements", "buildMetadata",
	}
}

func movePatchesStrategicMerge(node *kyaml.RNode) bool {
	psm := node.Field("patchesStrategicMerge")
	if psm == nil || psm.Value.YNode().Kind != kyaml.SequenceNode || len(psm.Value.YNode().Content) == 0 {
		return false
	}
	for _, f := range transformerFields() {
		if v := node.Field(f); v != nil && !v.Value.IsNilOrEmpty() {
			return false
		}
	}
	cfg := kyaml.NewMapRNode(nil)
	if err := cfg.PipeE(kyaml.SetField("apiVersion", kyaml.NewScalarRNode("builtin"))); err != nil {
		return false
	}
	if err := cfg.PipeE(kyaml.SetField("kind", kyaml.NewScalarRNode("PatchStrategicMergeTransformer"))); err != nil {
		return false
	}
	if err := cfg.SetName("siteops-patches-strategic-merge"); err != nil {
		return false
	}
	if err := cfg.PipeE(kyaml.SetField("paths", psm.Value)); err != nil {
		return false
	}
	text, err := cfg.String()
	if err != nil {
		return false
	}
	transformers, err := node.Pipe(kyaml.LookupCreate(kyaml.SequenceNode, "transformers"))
	if err != nil || transformers.YNode().Kind != kyaml.SequenceNode {
		return false
	}
	entry := kyaml.NewStringRNode(text)
	entry.YNode().Style = kyaml.LiteralStyle
	transformers.YNode().Content = append([]*kyaml.Node{entry.YNode()}, transformers.YNode().Content...)
	_, err = node.Pipe(kyaml.Clear("patchesStrategicMerge"))
	return err == nil
}
