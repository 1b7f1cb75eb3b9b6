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

package dashboard

import (
	"context"
	"strings"
	"testing"

	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/envtest"

	gitopsv1alpha1 "github.com/siteops/siteops/apis/gitops/v1alpha1"
)

// TestReadsWithTheUsersOwnRBAC starts the dashboard with the credentials of a user who may list and watch
// SiteSyncs in one namespace only: it serves that namespace, and for every namespace or another one Start
// says the user may not, instead of a watch that retries quietly.
func TestReadsWithTheUsersOwnRBAC(t *testing.T) {
	ctx := context.Background()
	ns, other := newNamespace(t), newNamespace(t)
	user, err := env.AddUser(envtest.User{Name: "viewer-" + ns}, nil)
	if err != nil {
		t.Fatal(err)
	}
	role := &rbacv1.Role{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "sitesync-viewer"},
		Rules: []rbacv1.PolicyRule{{APIGroups: []string{gitopsv1alpha1.GroupVersion.Group},
			Resources: []string{"sitesyncs"}, Verbs: []string{"get", "list", "watch"}}}}
	binding := &rbacv1.RoleBinding{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "sitesync-viewer"},
		RoleRef:  rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "Role", Name: role.Name},
		Subjects: []rbacv1.Subject{{Kind: rbacv1.UserKind, APIGroup: rbacv1.GroupName, Name: "viewer-" + ns}}}
	if err := k8s.Create(ctx, role); err != nil {
		t.Fatal(err)
	}
	if err := k8s.Create(ctx, binding); err != nil {
		t.Fatal(err)
	}

	for _, denied := range []string{"", other} {
		srv, err := New(user.Config(), env.Scheme, Options{Namespace: denied})
		if err != nil {
			t.Fatal(err)
		}
		err = srv.Start(t.Context())
		if err == nil || !strings.Contains(err.Error(), "forbidden") {
			t.Errorf("Start for namespace %q: %v, want a forbidden error", denied, err)
		}
	}
	srv, err := New(user.Config(), env.Scheme, Options{Namespace: ns})
	if err != nil {
		t.Fatal(err)
	}
	sctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	if err := srv.Start(sctx); err != nil {
		t.Errorf("Start for the user's namespace %s: %v", ns, err)
	}
}
