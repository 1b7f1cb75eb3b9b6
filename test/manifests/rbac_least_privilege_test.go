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

// Package manifests checks the committed deployment manifests under base/ for what a security review asks:
// least-privilege RBAC and a manager pod that passes the restricted Pod Security Standard.
package manifests

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	rbacv1 "k8s.io/api/rbac/v1"
	"sigs.k8s.io/yaml"

	"github.com/siteops/siteops/test/testenv"
)

// clusterScoped lists the cluster-scoped resources a controller could be granted; the manager may read some of
// them but write none.
var clusterScoped = map[string]bool{
	"namespaces": true, "nodes": true, "persistentvolumes": true, "customresourcedefinitions": true,
	"clusterroles": true, "clusterrolebindings": true, "validatingwebhookconfigurations": true,
	"mutatingwebhookconfigurations": true, "storageclasses": true, "priorityclasses": true,
	"certificatesigningrequests": true, "apiservices": true,
}

// ownedClusterWrites lists the cluster-scoped objects siteops owns and may write, each only by the names it owns
// (resourceNames): the webhook certificate rotator (--cert-source=self) injects its CA into siteops' own two
// webhook configurations.
var ownedClusterWrites = map[string][]string{
	"mutatingwebhookconfigurations": {"siteops-mutating-webhook-configuration",
		"siteops-validating-webhook-configuration"},
	"validatingwebhookconfigurations": {"siteops-mutating-webhook-configuration",
		"siteops-validating-webhook-configuration"},
}

// certSecret is the one Secret the manager may write: its own webhook certificate (--cert-source=self).
const certSecret = "siteops-webhook-server-cert"

var writeVerbs = []string{"create", "update", "patch", "delete", "deletecollection", "escalate", "bind", "impersonate"}

// readRoles parses every ClusterRole and Role under base/rbac.
func readRoles(t *testing.T) map[string][]rbacv1.PolicyRule {
	t.Helper()
	roles := map[string][]rbacv1.PolicyRule{}
	files, _ := filepath.Glob(filepath.Join(testenv.RepoRoot(), "base", "rbac", "*.yaml"))
	generated, _ := filepath.Glob(filepath.Join(testenv.RepoRoot(), "base", "rbac", "generated", "*.yaml"))
	files = append(files, generated...)
	if len(generated) == 0 {
		t.Fatal("base/rbac/generated has no role: run make manifests")
	}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, doc := range strings.Split(string(data), "\n---") {
			var r struct {
				Kind     string `json:"kind"`
				Metadata struct {
					Name string `json:"name"`
				} `json:"metadata"`
				Rules []rbacv1.PolicyRule `json:"rules"`
			}
			if err := yaml.Unmarshal([]byte(doc), &r); err != nil {
				t.Fatalf("%s: %v", f, err)
			}
			if r.Kind == "ClusterRole" || r.Kind == "Role" {
				roles[r.Kind+"/"+r.Metadata.Name] = r.Rules
			}
		}
	}
	return roles
}

// TestRBACHasNoWildcards fails on any "*" verb, resource or API group in siteops' roles.
func TestRBACHasNoWildcards(t *testing.T) {
	for name, rules := range readRoles(t) {
		for _, r := range rules {
			for _, field := range [][]string{r.Verbs, r.Resources, r.APIGroups} {
				if slices.Contains(field, "*") {
					t.Errorf("%s grants a wildcard: %+v", name, r)
				}
			}
		}
	}
}

// TestRBACWritesNoClusterScopedObjectsItDoesNotOwn fails on a write verb over a cluster-scoped resource that is
// not one the controllers own.
func TestRBACWritesNoClusterScopedObjectsItDoesNotOwn(t *testing.T) {
	for name, rules := range readRoles(t) {
		for _, r := range rules {
			for _, res := range r.Resources {
				if !clusterScoped[res] {
					continue
				}
				owned := ownedClusterWrites[res]
				byOwnName := len(owned) > 0 && len(r.ResourceNames) > 0 &&
					!slices.ContainsFunc(r.ResourceNames, func(n string) bool { return !slices.Contains(owned, n) })
				for _, v := range r.Verbs {
					if slices.Contains(writeVerbs, v) && (!byOwnName || (v != "update" && v != "patch")) {
						t.Errorf("%s may %s cluster-scoped %s (names %v)", name, v, res, r.ResourceNames)
					}
				}
			}
		}
	}
}

// TestRBACSecretsAreGetOnly fails when any role may do more with Secrets than get them by name, except for the
// manager's own webhook certificate: a namespaced Role may create Secrets (RBAC cannot limit create by name)
// and update only that one, by resourceNames.
func TestRBACSecretsAreGetOnly(t *testing.T) {
	found := false
	for name, rules := range readRoles(t) {
		for _, r := range rules {
			if !slices.Contains(r.Resources, "secrets") {
				continue
			}
			found = true
			onlyCert := len(r.ResourceNames) > 0 &&
				!slices.ContainsFunc(r.ResourceNames, func(n string) bool { return n != certSecret })
			for _, v := range r.Verbs {
				switch {
				case v == "get":
				case v == "update" && onlyCert:
				case v == "create" && strings.HasPrefix(name, "Role/") && len(r.Resources) == 1:
				default:
					t.Errorf("%s may %s secrets (names %v); only get, and create/update of %s in a Role, are allowed",
						name, v, r.ResourceNames, certSecret)
				}
			}
		}
	}
	if !found {
		t.Error("no role reads Secrets, but SiteSync credentials come from Secrets: the RBAC markers are missing")
	}
}
