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
	"bytes"
	"context"
	"fmt"
	"os/exec"
	"path/filepath"
	"sort"
	"testing"

	. "github.com/onsi/gomega"
	"sigs.k8s.io/kustomize/kyaml/kio"

	"github.com/siteops/siteops/gitops/validate"
	"github.com/siteops/siteops/test/testenv"
)

// parityRepo adds overlays using more kustomize features to baseRepo.
func parityRepo() map[string]string {
	files := baseRepo()
	for p, c := range map[string]string{
		"components/monitoring/kustomization.yaml": "apiVersion: kustomize.config.k8s.io/v1alpha1\nkind: Component\n" +
			"resources:\n- monitor.yaml\nlabels:\n- pairs: {monitoring: enabled}\n",
		"components/monitoring/monitor.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: monitor\ndata:\n  " +
			"scrape: \"30s\"\n",
		"overlays/features/kustomization.yaml": `namespace: features
namePrefix: f-
resources:
- ../../base
components:
- ../../components/monitoring
labels:
- pairs: {site: features}
  includeSelectors: false
commonAnnotations:
  owner: platform
images:
- name: nginx
  newName: registry.local/nginx
  newTag: "1.29"
replicas:
- name: web
  count: 4
configMapGenerator:
- name: settings
  literals: [mode=features]
  files: [settings.properties]
patches:
- target: {kind: Service, name: web}
  patch: |-
    - op: replace
      path: /spec/ports/0/port
      value: 8443
replacements:
- source: {kind: ConfigMap, name: settings, fieldPath: metadata.name}
  targets:
  - select: {kind: Deployment, name: web}
    fieldPaths: [spec.template.metadata.annotations.settings]
    options: {create: true}
`,
		"overlays/features/settings.properties": "color=blue\nsize=large\n",
		"overlays/decapod-namespaced/kustomization.yaml": "namespace: decapod\nbases:\n- ../../base\n" +
			"patchesStrategicMerge:\n- site-values.yaml\n- |-\n  apiVersion: v1\n  kind: Service\n  metadata:\n    name: web\n" +
			"  spec:\n    type: NodePort\n",
		"overlays/decapod-namespaced/site-values.yaml": siteValues(2, "nginx:1.24"),
		"overlays/decapod-delete/kustomization.yaml": "bases:\n- ../../base\npatchesStrategicMerge:\n- " +
			"delete-service.yaml\n" +
			"transformers:\n- prefix.yaml\n",
		"overlays/decapod-delete/delete-service.yaml": "apiVersion: v1\nkind: Service\nmetadata:\n  name: web\n$patch: " +
			"delete\n",
		"overlays/decapod-delete/prefix.yaml": "apiVersion: builtin\nkind: PrefixSuffixTransformer\nmetadata:\n  name: p\n" +
			"prefix: del-\nfieldSpecs:\n- path: metadata/name\n",
	} {
		files[p] = c
	}
	return files
}

// kustomizeBuild runs the pinned kustomize CLI, or kubectl's, on dir; it fails the test when neither exists.
func kustomizeBuild(t *testing.T, dir string) []byte {
	t.Helper()
	var cmd *exec.Cmd
	// The checkout's own sites render the sample chart: kustomize runs the pinned Helm CLI for it, for the
	// Kubernetes version siteops renders charts for.
	helm := []string{"--enable-helm", "--helm-kube-version", validate.DefaultKubernetesVersion()}
	if dir, err := testenv.PinnedDir("helm"); err == nil {
		helm = append(helm, "--helm-command", filepath.Join(dir, "helm"))
	}
	pinned, pinnedErr := testenv.PinnedBinary("kustomize", "kustomize")
	if pinnedErr == nil {
		cmd = exec.Command(pinned, append(append([]string{"build"}, helm...), dir)...)
	} else if kubectl, err := exec.LookPath("kubectl"); err == nil {
		cmd = exec.Command(kubectl, append(append([]string{"kustomize"}, helm...), dir)...)
	} else {
		t.Fatalf("neither the pinned kustomize (%v) nor kubectl is installed: cannot compare with kustomize", pinnedErr)
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("%s: %v\n%s", cmd, err, stderr.String())
	}
	return out
}

// parsedObjects parses a YAML stream into objects sorted by apiVersion, kind, namespace and name.
func parsedObjects(t *testing.T, stream []byte) []map[string]any {
	t.Helper()
	nodes, err := kio.FromBytes(stream)
	if err != nil {
		t.Fatalf("parsing YAML stream: %v", err)
	}
	objs := make([]map[string]any, 0, len(nodes))
	keys := map[*map[string]any]string{}
	for _, n := range nodes {
		m, err := n.Map()
		if err != nil {
			t.Fatal(err)
		}
		objs = append(objs, m)
		keys[&objs[len(objs)-1]] = fmt.Sprintf("%s/%s/%s/%s", n.GetApiVersion(), n.GetKind(), n.GetNamespace(), n.GetName())
	}
	id := func(m map[string]any) string {
		md, _ := m["metadata"].(map[string]any)
		return fmt.Sprintf("%v/%v/%v/%v", m["apiVersion"], m["kind"], md["namespace"], md["name"])
	}
	sort.Slice(objs, func(i, j int) bool { return id(objs[i]) < id(objs[j]) })
	return objs
}

func TestSyncOutputEqualsKustomizeBuildForEverySite(t *testing.T) {
	t.Parallel()
	g := NewWithT(t)
	e := newSyncEnv(t, parityRepo())

	res := e.sync(t, nil)

	checkout := e.srv.Clone(t, e.repo)
	g.Expect(res.Sites).To(HaveLen(6))
	for _, s := range res.Sites {
		g.Expect(s.Ready).To(BeTrue(), "site %s: %s", s.Name, s.Message)
		want := parsedObjects(t, kustomizeBuild(t, filepath.Join(checkout.Dir, "overlays", s.Name)))
		got := parsedObjects(t, []byte(e.rendered(t, s.Name)))
		g.Expect(got).NotTo(BeEmpty())
		g.Expect(got).To(Equal(want), "site %s differs from kustomize build", s.Name)
	}
}

func TestRenderEqualsKustomizeBuildForTheCheckoutsOwnSites(t *testing.T) {
	t.Parallel()
	g := NewWithT(t)
	c := openOwnSites(t)
	sites, err := c.Sites("")
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(sites).NotTo(BeEmpty())

	for _, r := range c.RenderSites(context.Background(), "", sites, 2, nil) {
		g.Expect(r.Err).NotTo(HaveOccurred(), "site %s", r.Name)
		want := parsedObjects(t, kustomizeBuild(t, filepath.Join(c.Root(), r.Dir)))
		g.Expect(parsedObjects(t, r.YAML)).To(Equal(want), "site %s differs from kustomize build", r.Name)
	}
}
