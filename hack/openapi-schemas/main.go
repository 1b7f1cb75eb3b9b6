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

// Command openapi-schemas writes the OpenAPI schemas of the built-in Kubernetes types, as the kube-apiserver
// of KUBEBUILDER_ASSETS serves them with every API group and version on, to the file gitops/validate embeds.
// Descriptions are dropped: validation needs only the shapes.
//
//	KUBEBUILDER_ASSETS=... go run ./hack/openapi-schemas gitops/validate/schemas/kubernetes-1.37.json
package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"slices"

	"k8s.io/client-go/discovery"
	"sigs.k8s.io/controller-runtime/pkg/envtest"
)

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: openapi-schemas OUTPUT.json")
		os.Exit(2)
	}
	if err := run(os.Args[1]); err != nil {
		fmt.Fprintln(os.Stderr, "openapi-schemas:", err)
		os.Exit(1)
	}
}

func run(out string) (err error) {
	env := &envtest.Environment{}
	env.ControlPlane.GetAPIServer().Configure().Set("runtime-config", "api/all=true")
	cfg, err := env.Start()
	if err != nil {
		return fmt.Errorf("starting kube-apiserver: %w", err)
	}
	defer func() {
		if stopErr := env.Stop(); err == nil && stopErr != nil {
			err = stopErr
		}
	}()
	dc, err := discovery.NewDiscoveryClientForConfig(cfg)
	if err != nil {
		return err
	}
	paths, err := dc.OpenAPIV3().Paths()
	if err != nil {
		return fmt.Errorf("listing OpenAPI v3 documents: %w", err)
	}
	schemas := map[string]any{}
	for _, p := range slices.Sorted(maps.Keys(paths)) {
		b, err := paths[p].Schema("application/json")
		if err != nil {
			return fmt.Errorf("reading %s: %w", p, err)
		}
		var doc struct {
			Components struct {
				Schemas map[string]any `json:"schemas"`
			} `json:"components"`
		}
		if err := json.Unmarshal(b, &doc); err != nil {
			return fmt.Errorf("parsing %s: %w", p, err)
		}
		for name, s := range doc.Components.Schemas {
			schemas[name] = dropDescriptions(s)
		}
	}
	var buf bytes.Buffer
	buf.WriteString("{\n")
	for i, name := range slices.Sorted(maps.Keys(schemas)) {
		k, _ := json.Marshal(name)
		v, err := json.Marshal(schemas[name])
		if err != nil {
			return err
		}
		sep := ",\n"
		if i == len(schemas)-1 {
			sep = "\n"
		}
		fmt.Fprintf(&buf, "%s: %s%s", k, v, sep)
	}
	buf.WriteString("}\n")
	return os.WriteFile(out, buf.Bytes(), 0o644)
}

// dropDescriptions removes every description text; a property named "description" (an object) stays.
func dropDescriptions(v any) any {
	switch t := v.(type) {
	case map[string]any:
		for k, c := range t {
			if _, isText := c.(string); isText && k == "description" {
				delete(t, k)
				continue
			}
			t[k] = dropDescriptions(c)
		}
	case []any:
		for i := range t {
			t[i] = dropDescriptions(t[i])
		}
	}
	return v
}
