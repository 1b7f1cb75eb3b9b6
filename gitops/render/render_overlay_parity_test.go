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
	"errors"
	"path"
	"sort"
	"strings"
	"testing"

	. "github.com/onsi/gomega"
	"sigs.k8s.io/kustomize/api/krusty"
	kusttypes "sigs.k8s.io/kustomize/api/types"
	"sigs.k8s.io/kustomize/kyaml/filesys"

	"github.com/siteops/siteops/gitops/guard"
)

// parityBase is a base whose objects refer to each other by name (so renames must follow) and hold scalars
// YAML and JSON print differently.
var parityBase = map[string]string{
	"base/kustomization.yaml": "resources:\n- app.yaml\n- rbac.yaml\n- tricky.yaml\n",
	"base/app.yaml": `apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
  labels: {app: web}
spec:
  replicas: 1
  selector:
    matchLabels: {app: web}
  template:
    metadata:
      labels: {app: web}
    spec:
      serviceAccountName: web
      containers:
      - name: web
        image: nginx:1.25
        envFrom:
        - configMapRef: {name: web-config}
        ports:
        - {containerPort: 8080, name: http}
---
apiVersion: v1
kind: Service
metadata:
  name: web
spec:
  selector: {app: web}
  ports:
  - {name: http, port: 80, targetPort: http}
---
apiVersion: v1
kind: ConfigMap
metadata:
  name: web-config
data:
  LOG_LEVEL: info
  PORT: "8080"
`,
	"base/rbac.yaml": `apiVersion: v1
kind: ServiceAccount
metadata:
  name: web
---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata:
  name: web
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: Role, name: web}
subjects:
- {kind: ServiceAccount, name: web}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: Role
metadata:
  name: web
rules:
- {apiGroups: [""], resources: [configmaps], verbs: [get]}
`,
	"base/tricky.yaml": `apiVersion: example.com/v1
kind: Tricky
metadata:
  name: tricky
  annotations:
    note: "café ✓"
spec:
  float: 1.0
  ratio: 0.25
  big: 1e3
  yes: "yes"
  empty: ""
  none: null
  script: |
    #!/bin/sh
      indented line
    echo "done"
  list: [1, "2", true, {a: ~}]
`,
}

// parityOverlays are overlays of every shape the render must keep identical to kustomize's, by folder.
var parityOverlays = map[string]map[string]string{
	"overlays/strategic-merge": {
		"kustomization.yaml": "resources:\n- ../../base\npatches:\n- path: values.yaml\n",
		"values.yaml": "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\nspec:\n  replicas: 3\n" +
			"  template:\n    spec:\n      containers:\n      - name: web\n        env:\n        - {name: SITE, value: a}\n",
	},
	"overlays/json6902-targets": {
		"kustomization.yaml": `resources:
- ../../base
patches:
- target: {kind: Service, name: web}
  patch: |-
    - {op: replace, path: /spec/ports/0/port, value: 8443}
- target: {group: apps, version: v1, kind: Deployment, labelSelector: app=web}
  patch: |-
    - {op: add, path: /spec/template/spec/containers/0/args, value: ["--site", "b"]}
- target: {kind: ConfigMap}
  patch: |-
    apiVersion: v1
    kind: ConfigMap
    metadata: {name: any}
    data: {EXTRA: "1"}
`,
	},
	"overlays/prefix-suffix": {
		"kustomization.yaml": "resources:\n- ../../base\nnamePrefix: p-\nnameSuffix: -s\n",
	},
	"overlays/namespace": {
		"kustomization.yaml": "resources:\n- ../../base\nnamespace: site-ns\n",
	},
	"overlays/images": {
		"kustomization.yaml": "resources:\n- ../../base\nimages:\n- {name: nginx, newName: registry.local/nginx, " +
			"newTag: \"1.29\"}\n- {name: busybox, digest: \"sha256:0123456789abcdef0123456789abcdef0123456789abcdef" +
			"0123456789abcdef\"}\n",
	},
	"overlays/labels-annotations": {
		"kustomization.yaml": `resources:
- ../../base
labels:
- pairs: {site: c}
  includeSelectors: false
- pairs: {tier: front}
  includeSelectors: true
  includeTemplates: true
commonAnnotations:
  owner: platform
  "example.com/count": "3"
`,
	},
	"overlays/generators": {
		"kustomization.yaml": `resources:
- ../../base
configMapGenerator:
- name: web-config
  behavior: merge
  literals: [LOG_LEVEL=debug]
- name: site-settings
  literals: [SITE=d, REGION=eu]
  files: [settings.properties]
generatorOptions:
  labels: {generated: "yes"}
`,
		"settings.properties": "color=blue\nsize=large\n",
	},
	"overlays/base-generators": {
		"kustomization.yaml": "resources:\n- ../../base-gen\nnamePrefix: g-\nnamespace: gen\n" +
			"configMapGenerator:\n- name: gen-config\n  behavior: merge\n  literals: [MODE=site]\n",
	},
	"overlays/deprecated-fields": {
		"kustomization.yaml": "bases:\n- ../../base\ncommonLabels: {site: e}\npatchesStrategicMerge:\n- values.yaml\n",
		"values.yaml":        "apiVersion: v1\nkind: Service\nmetadata:\n  name: web\nspec:\n  type: NodePort\n",
	},
	"overlays/everything": {
		"kustomization.yaml": `resources:
- ../../base
namespace: all
namePrefix: all-
nameSuffix: -x
labels:
- pairs: {site: all}
commonAnnotations: {owner: all}
images:
- {name: nginx, newTag: "2.0"}
replicas:
- {name: web, count: 5}
configMapGenerator:
- name: all-settings
  literals: [A=1]
patches:
- path: values.yaml
- target: {kind: Deployment}
  patch: '[{"op": "add", "path": "/metadata/annotations/patched", "value": "true"}]'
`,
		"values.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: web-config\ndata:\n  LOG_LEVEL: warn\n",
	},
	"overlays/secret-generator": {
		"kustomization.yaml": "resources:\n- ../../base\nsecretGenerator:\n- name: creds\n  literals: [token=t]\n",
	},
}

// parityBaseWithGenerators is a base with its own generator, which the overlay above renames and merges into.
var parityBaseWithGenerators = map[string]string{
	"base-gen/kustomization.yaml": "resources:\n- ../base\nconfigMapGenerator:\n- name: gen-config\n" +
		"  literals: [MODE=base]\n",
}

// parityInputs are the guard's inputs for overlay dir: every file of the test repository, as kustomize
// opens them.
func parityInputs(dir string) *guard.Inputs {
	in := &guard.Inputs{Files: map[string][]byte{}}
	add := func(p, content string) {
		in.Files[p] = []byte(content)
		if path.Base(p) == "kustomization.yaml" {
			in.KustFiles = append(in.KustFiles, p)
		}
	}
	for p, c := range parityBase {
		add(p, c)
	}
	for p, c := range parityBaseWithGenerators {
		add(p, c)
	}
	for f, c := range parityOverlays[dir] {
		add(dir+"/"+f, c)
	}
	sort.Strings(in.KustFiles)
	return in
}

// plainKustomize is a plain krusty build of dir from in's files, printed by kustomize's AsYaml; it fails t
// unless asYAML prints every resource itself, with the same bytes.
func plainKustomize(t *testing.T, in *guard.Inputs, dir string) []byte {
	t.Helper()
	fs := filesys.MakeFsInMemory()
	for p, b := range in.Files {
		if err := fs.MkdirAll(path.Dir("/" + p)); err != nil {
			t.Fatal(err)
		}
		if err := fs.WriteFile("/"+p, b); err != nil {
			t.Fatal(err)
		}
	}
	opts := krusty.MakeDefaultOptions()
	opts.LoadRestrictions = kusttypes.LoadRestrictionsRootOnly
	opts.PluginConfig = kusttypes.DisabledPluginConfig()
	m, err := krusty.MakeKustomizer(opts).Run(fs, "/"+dir)
	if err != nil {
		t.Fatalf("kustomize build %s: %v", dir, err)
	}
	want, err := m.AsYaml()
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range m.Resources() {
		if _, ok := resourceYAML(r); !ok {
			t.Fatalf("%s: %s is printed by kustomize's AsYaml, not asYAML", dir, r.CurId())
		}
	}
	got, err := asYAML(m)
	if err != nil || string(got) != string(want) {
		t.Fatalf("%s: asYAML differs from AsYaml (error %v):\n%s\nwant\n%s", dir, err, got, want)
	}
	return want
}

func TestRenderEqualsPlainKustomizeByteForByteForEveryOverlayShape(t *testing.T) {
	dirs := make([]string, 0, len(parityOverlays))
	for d := range parityOverlays {
		dirs = append(dirs, d)
	}
	sort.Strings(dirs)
	for _, dir := range dirs {
		t.Run(path.Base(dir), func(t *testing.T) {
			g := NewWithT(t)
			in := parityInputs(dir)
			want := plainKustomize(t, in, dir)
			g.Expect(want).NotTo(BeEmpty())

			got, err := Build(in, dir, Options{})

			if strings.Contains(string(want), "kind: Secret\n") {
				var plaintext *PlaintextSecretError
				g.Expect(errors.As(err, &plaintext)).To(BeTrue(), "a generated Secret is refused: %v", err)
				return
			}
			g.Expect(err).NotTo(HaveOccurred())
			g.Expect(string(got)).To(Equal(string(want)))
		})
	}
}
