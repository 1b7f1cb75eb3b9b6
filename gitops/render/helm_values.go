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

	"sigs.k8s.io/kustomize/api/resmap"
	kyaml "sigs.k8s.io/kustomize/kyaml/yaml"

	"github.com/siteops/siteops/gitops/guard"
	"github.com/siteops/siteops/gitops/helmvalues"
)

// helmValues are the HelmValuesTransformer configs of one build, which kustomize cannot run (it would load
// them as an external plugin): Build takes them out of `transformers:` and applies them to the built objects.
type helmValues struct {
	// kusts are the kustomization files with their HelmValuesTransformer entries removed.
	kusts map[string][]byte
	// configs apply in this order: a kustomization's after those of the kustomizations it includes, so a
	// group's base/site-values.yaml applies before the site's.
	configs []*helmvalues.Config
}

// findHelmValues finds the `transformers:` entries of the guarded kustomizations that name a
// HelmValuesTransformer file, parses each and takes it out of its kustomization.
func findHelmValues(in *guard.Inputs) (*helmValues, error) {
	hv := &helmValues{kusts: map[string][]byte{}}
	for i := len(in.KustFiles) - 1; i >= 0; i-- { // the walk visits a kustomization before what it includes
		kf := in.KustFiles[i]
		if !bytes.Contains(in.Files[kf], []byte("transformers")) {
			continue // most kustomizations: no parse on every build
		}
		node, err := kyaml.Parse(string(in.Files[kf]))
		if err != nil {
			continue // kustomize reports it
		}
		tr := node.Field("transformers")
		if tr == nil || tr.Value.YNode().Kind != kyaml.SequenceNode {
			continue
		}
		var kept []*kyaml.Node
		for _, e := range tr.Value.YNode().Content {
			file := path.Join(path.Dir(kf), e.Value)
			b, ok := in.Files[file]
			if e.Kind != kyaml.ScalarNode || !ok || !helmvalues.IsConfig(b) {
				kept = append(kept, e)
				continue
			}
			c, err := helmvalues.Parse(file, b)
			if err != nil {
				return nil, err
			}
			hv.configs = append(hv.configs, c)
		}
		if len(kept) == len(tr.Value.YNode().Content) {
			continue
		}
		tr.Value.YNode().Content = kept
		out, err := node.String()
		if err != nil {
			return nil, fmt.Errorf("staging %s: %w", kf, err)
		}
		hv.kusts[kf] = []byte(out)
	}
	return hv, nil
}

// apply applies the configs to the HelmReleases of m.
func (hv *helmValues) apply(m resmap.ResMap) error {
	if len(hv.configs) == 0 {
		return nil
	}
	var objs []map[string]any
	var res []*kyaml.RNode
	for _, r := range m.Resources() {
		obj, err := r.Map()
		if err != nil || !helmvalues.IsHelmRelease(obj) {
			continue
		}
		objs, res = append(objs, obj), append(res, &r.RNode)
	}
	for _, c := range hv.configs {
		if err := c.Apply(objs); err != nil {
			return err
		}
	}
	for i, obj := range objs {
		n, err := kyaml.FromMap(obj)
		if err != nil {
			return fmt.Errorf("HelmRelease %v: %w", obj["metadata"], err)
		}
		res[i].SetYNode(n.YNode())
	}
	return nil
}
