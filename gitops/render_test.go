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
	"io"
	"os"
	"testing"

	. "github.com/onsi/gomega"

	"github.com/siteops/siteops/gitops/guard"
	"github.com/siteops/siteops/gitops/internal/tree/treetest"
	"github.com/siteops/siteops/gitops/render"
)

// captureStderr returns what fn printed on the process's stderr.
func captureStderr(t *testing.T, fn func()) string {
	t.Helper()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	saved := os.Stderr
	os.Stderr = w
	done := make(chan []byte)
	go func() { b, _ := io.ReadAll(r); done <- b }()
	fn()
	os.Stderr = saved
	_ = w.Close()
	return string(<-done)
}

func renderTree(t *testing.T, files map[string]string, dirs ...string) []render.Result {
	t.Helper()
	tree := &treetest.Map{Files: files}
	jobs := make([]render.Job, len(dirs))
	for i, d := range dirs {
		in, err := guard.Site(tree, d)
		if err != nil {
			t.Fatalf("guard %s: %v", d, err)
		}
		jobs[i] = render.Job{Name: d, Dir: d, In: in}
	}
	return render.Pool(context.Background(), jobs, render.PoolOptions{Workers: 2}, nil)
}

func TestRenderIsDeterministic(t *testing.T) {
	g := NewWithT(t)
	files := parityRepo()
	dirs := []string{"overlays/features", "overlays/features", "overlays/features", "overlays/features", "overlays/prod",
		"overlays/prod"}

	results := renderTree(t, files, dirs...)

	for i, r := range results {
		g.Expect(r.Err).NotTo(HaveOccurred())
		g.Expect(r.YAML).To(Equal(results[i-i%4].YAML), "render %d of %s", i, dirs[i])
	}
	g.Expect(bytes.Count(results[0].YAML, []byte("\n---\n"))).To(Equal(3), "four objects")
}

func TestRenderReportsDeprecatedFieldsWithoutPrintingThem(t *testing.T) {
	g := NewWithT(t)
	files := parityRepo()
	var results []render.Result
	printed := captureStderr(t, func() {
		results = renderTree(t, files, "overlays/prod", "overlays/decapod-delete")
	})
	g.Expect(printed).To(BeEmpty())
	for _, r := range results {
		g.Expect(r.Err).NotTo(HaveOccurred())
	}
	g.Expect(string(results[0].YAML)).To(ContainSubstring("replicas: 3"))
	g.Expect(string(results[1].YAML)).NotTo(ContainSubstring("kind: Service"), "the $patch: delete still applies")
	g.Expect(string(results[1].YAML)).To(ContainSubstring("name: del-web"), "after the PrefixSuffixTransformer")

	in, err := guard.Site(&treetest.Map{Files: files}, "overlays/prod")
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(in.Warnings).To(ConsistOf(
		`overlays/prod/kustomization.yaml: "bases" is deprecated, use "resources" instead`,
		`overlays/prod/kustomization.yaml: "patchesStrategicMerge" is deprecated, use "patches" instead`,
	))
}

func TestRenderOpenAPISchemaDoesNotLeakIntoOtherSites(t *testing.T) {
	g := NewWithT(t)
	files := parityRepo()
	alone := renderTree(t, files, "overlays/features")[0]
	g.Expect(alone.Err).NotTo(HaveOccurred())
	files["overlays/openapi/kustomization.yaml"] = "openapi:\n  version: v1.21.2\nresources:\n- ../../base\n"

	results := renderTree(t, files, "overlays/openapi", "overlays/features", "overlays/openapi", "overlays/features")

	for _, r := range results {
		g.Expect(r.Err).NotTo(HaveOccurred())
	}
	g.Expect(results[1].YAML).To(Equal(alone.YAML))
	g.Expect(results[3].YAML).To(Equal(alone.YAML))
}
