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

package main

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"testing"
)

// TestEmbeddedSchemasAreTheAPIServers regenerates the built-in schemas from the kube-apiserver of
// KUBEBUILDER_ASSETS (the release envtest runs, which follows k8s.io/api in go.mod) and fails when the file
// gitops/validate embeds differs: run `make openapi-schemas` and commit. It runs with the envtest tests rather
// than in make verify, so the gates never wait for a kube-apiserver build.
func TestEmbeddedSchemasAreTheAPIServers(t *testing.T) {
	assets := os.Getenv("KUBEBUILDER_ASSETS")
	m := regexp.MustCompile(`(\d+\.\d+)\.\d+-[a-z]+-[a-z0-9]+$`).FindStringSubmatch(filepath.Clean(assets))
	if m == nil {
		t.Fatalf("KUBEBUILDER_ASSETS=%q does not name a release folder such as 1.37.2-linux-amd64 (make test-unit "+
			"sets it)", assets)
	}
	committed, err := os.ReadFile(filepath.Join("..", "..", "gitops", "validate", "schemas", "kubernetes-"+m[1]+".json"))
	if err != nil {
		t.Fatalf("no embedded schemas for Kubernetes %s: run 'make openapi-schemas' and commit (%v)", m[1], err)
	}
	out := filepath.Join(t.TempDir(), "schemas.json")
	if err := run(out); err != nil {
		t.Fatal(err)
	}
	fresh, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(fresh, committed) {
		t.Fatalf("gitops/validate/schemas/kubernetes-%s.json differs from what kube-apiserver %s serves "+
			"(%d bytes against %d): run 'make openapi-schemas' and commit", m[1], filepath.Base(assets),
			len(committed), len(fresh))
	}
}
