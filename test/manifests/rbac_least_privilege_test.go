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

// ownedClusterWrites lists the cluster-scoped objects the controllers own and may write (none today).
var ownedClusterWrites = map[string]bool{}

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
				if !clusterScoped[res] || ownedClusterWrites[res] {
					continue
				}
				for _, v := range r.Verbs {
					if slices.Contains(writeVerbs, v) {
						t.Errorf("%s may %s cluster-scoped %s", name, v, res)
					}
				}
			}
		}
	}
}

// TestRBACSecretsAreGetOnly fails when any role may do more with Secrets than get them by name.
func TestRBACSecretsAreGetOnly(t *testing.T) {
	found := false
	for name, rules := range readRoles(t) {
		for _, r := range rules {
			if !slices.Contains(r.Resources, "secrets") {
				continue
			}
			found = true
			for _, v := range r.Verbs {
				if v != "get" {
					t.Errorf("%s may %s secrets; only get is allowed", name, v)
				}
			}
		}
	}
	if !found {
		t.Error("no role reads Secrets, but SiteSync credentials come from Secrets: the RBAC markers are missing")
	}
}
