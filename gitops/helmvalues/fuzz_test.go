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

package helmvalues

import (
	"testing"

	"go.yaml.in/yaml/v3"
)

// FuzzParseAndApply: no config, however malformed, panics Parse or Apply, or makes Apply run away.
func FuzzParseAndApply(f *testing.F) {
	f.Add("global:\n  a: $(b)\n  b: $(a)\ncharts:\n- name: glance\n  override:\n    v: $(a)\n")
	f.Add("charts:\n- name: glance\n  override:\n    pod.replicas.max: 1\n    a\\.b: {c: [1, $(x)]}\n")
	f.Add("global:\n  x: [1, 2]\ncharts:\n- name: glance\n  source:\n    version: $(x)\n")
	f.Add("charts: [{name: glance, override: {conf: null, 'conf.ceph': {enabled: true}}}]\n")
	f.Fuzz(func(t *testing.T, config string) {
		c, err := Parse("site-values.yaml", []byte(config))
		if err != nil {
			return
		}
		var obj map[string]any
		if err := yaml.Unmarshal([]byte(glance), &obj); err != nil {
			t.Fatal(err)
		}
		_ = c.Apply([]map[string]any{obj})
	})
}
