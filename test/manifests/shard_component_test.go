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

package manifests

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/labels"
	"sigs.k8s.io/kustomize/api/krusty"
	"sigs.k8s.io/kustomize/api/resource"
	"sigs.k8s.io/kustomize/api/types"
	"sigs.k8s.io/kustomize/kyaml/filesys"

	"github.com/siteops/siteops/test/testenv"
)

// renderShards builds a throw-away site overlay of base with one folder per shard, as base/components/shard
// tells a site to write them.
func renderShards(t *testing.T, shards ...string) []*resource.Resource {
	t.Helper()
	root := testenv.RepoRoot()
	dir := t.TempDir()
	rel := func(from, p string) string {
		r, err := filepath.Rel(from, filepath.Join(root, p))
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	write := func(path, text string) {
		if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	site := "resources: [" + rel(dir, "base")
	for _, s := range shards {
		site += ", " + s
		sd := filepath.Join(dir, s)
		write(filepath.Join(sd, "kustomization.yaml"), fmt.Sprintf(
			"namespace: siteops-system\nnamePrefix: siteops-\nnameSuffix: -%s\nresources: [%s, shard.yaml]\ncomponents: [%s]\n",
			s, rel(sd, "base/manager"), rel(sd, "base/components/shard")))
		write(filepath.Join(sd, "shard.yaml"), "apiVersion: v1\nkind: ConfigMap\n"+
			"metadata: {name: shard, annotations: {config.kubernetes.io/local-config: \"true\"}}\ndata: {key: "+s+"}\n")
	}
	write(filepath.Join(dir, "kustomization.yaml"), site+"]\n")
	opts := krusty.MakeDefaultOptions()
	opts.LoadRestrictions = types.LoadRestrictionsNone
	m, err := krusty.MakeKustomizer(opts).Run(filesys.MakeFsOnDisk(), dir)
	if err != nil {
		t.Fatalf("kustomize build: %v", err)
	}
	return m.Resources()
}

// stringsAt returns the strings of the list at path of r.
func stringsAt(t *testing.T, r *resource.Resource, path string) []string {
	t.Helper()
	list, err := r.GetSlice(path)
	if err != nil {
		t.Fatalf("%s %s: %v", r.GetName(), path, err)
	}
	var out []string
	for _, v := range list {
		out = append(out, fmt.Sprint(v))
	}
	return out
}

// labelsAt returns the string map at path of r as a label set.
func labelsAt(t *testing.T, r *resource.Resource, path string) labels.Set {
	t.Helper()
	m, err := r.GetFieldValue(path)
	if err != nil {
		t.Fatalf("%s %s: %v", r.GetName(), path, err)
	}
	set := labels.Set{}
	for k, v := range m.(map[string]any) {
		set[k] = fmt.Sprint(v)
	}
	return set
}

// TestShardComponentRendersOneRolloutPerShard: a site with two shards renders the main Rollout unchanged and
// one Rollout per shard, each running its shard's --watch-label-selector (its Lease follows from it) without
// webhooks, under the shipped ServiceAccount, with its own active and preview Services and standby analysis.
// Every Rollout's selector and Services select its own pods and no other Rollout's.
func TestShardComponentRendersOneRolloutPerShard(t *testing.T) {
	rs := renderShards(t, "shard1", "shard2")
	main := find(t, rs, "Rollout", "siteops-manager")
	for _, a := range stringsAt(t, main, "spec.template.spec.containers[0].args") {
		if strings.HasPrefix(a, "--watch-label-selector") {
			t.Errorf("main Rollout runs %s; want the default, every object without a shard", a)
		}
	}
	rollouts := map[string]*resource.Resource{"main": main}
	for _, s := range []string{"shard1", "shard2"} {
		ro := find(t, rs, "Rollout", "siteops-manager-"+s)
		rollouts[s] = ro
		args := stringsAt(t, ro, "spec.template.spec.containers[0].args")
		for _, want := range []string{"--watch-label-selector=sharding.fluxcd.io/key=" + s, "--enable-webhooks=false",
			"--leader-elect"} {
			if !slices.Contains(args, want) {
				t.Errorf("%s args %v lack %s", ro.GetName(), args, want)
			}
		}
		if sa, _ := ro.GetString("spec.template.spec.serviceAccountName"); sa != "siteops-manager" {
			t.Errorf("%s runs as ServiceAccount %q", ro.GetName(), sa)
		}
		find(t, rs, "ServiceAccount", "siteops-manager")
		for _, ref := range []string{"spec.strategy.blueGreen.activeService", "spec.strategy.blueGreen.previewService"} {
			name, _ := ro.GetString(ref)
			if name != "siteops-webhook-service-"+s && name != "siteops-webhook-service-preview-"+s {
				t.Errorf("%s %s = %q", ro.GetName(), ref, name)
			}
			find(t, rs, "Service", name)
		}
		tmpl := stringsAt(t, ro, "spec.strategy.blueGreen.prePromotionAnalysis.templates")
		find(t, rs, "AnalysisTemplate", "siteops-standby-report-"+s)
		if len(tmpl) != 1 {
			t.Errorf("%s analysis templates %v", ro.GetName(), tmpl)
		}
	}
	for name, ro := range rollouts {
		sel := labels.SelectorFromSet(labelsAt(t, ro, "spec.selector.matchLabels"))
		for other, o := range rollouts {
			if got := sel.Matches(labelsAt(t, o, "spec.template.metadata.labels")); got != (name == other) {
				t.Errorf("Rollout %s's selector matches %s's pods: %v", name, other, got)
			}
		}
	}
	for _, s := range []string{"shard1", "shard2"} {
		for _, svc := range []string{"siteops-webhook-service-" + s, "siteops-webhook-service-preview-" + s} {
			sel := labels.SelectorFromSet(labelsAt(t, find(t, rs, "Service", svc), "spec.selector"))
			for other, o := range rollouts {
				if got := sel.Matches(labelsAt(t, o, "spec.template.metadata.labels")); got != (other == s) {
					t.Errorf("Service %s selects %s's pods: %v", svc, other, got)
				}
			}
		}
	}
	for _, r := range rs {
		if r.GetKind() == "ConfigMap" && r.GetName() == "shard" {
			t.Errorf("the shard key ConfigMap is rendered; it is kustomize's input only")
		}
	}
}
