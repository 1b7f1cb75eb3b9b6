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

package testenv

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	authenticationv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"
)

// ServiceAccountToken creates ServiceAccount name in ns, binds it to clusterRole when that is not "", and
// returns a token for it from the TokenRequest API, as a pod would have mounted.
func ServiceAccountToken(tb testing.TB, cs kubernetes.Interface, k8s client.Client, ns, name,
	clusterRole string) string {
	tb.Helper()
	ctx := context.Background()
	sa := &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}}
	if err := k8s.Create(ctx, sa); err != nil {
		tb.Fatal(err)
	}
	if clusterRole != "" {
		if err := k8s.Create(ctx, &rbacv1.ClusterRoleBinding{
			ObjectMeta: metav1.ObjectMeta{Name: name + "-" + clusterRole},
			RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: clusterRole},
			Subjects:   []rbacv1.Subject{{Kind: rbacv1.ServiceAccountKind, Namespace: ns, Name: name}},
		}); err != nil {
			tb.Fatal(err)
		}
	}
	tr, err := cs.CoreV1().ServiceAccounts(ns).CreateToken(ctx, name, &authenticationv1.TokenRequest{
		Spec: authenticationv1.TokenRequestSpec{ExpirationSeconds: ptr.To[int64](3600)}}, metav1.CreateOptions{})
	if err != nil {
		tb.Fatal(err)
	}
	return tr.Status.Token
}

// ApplyShippedClusterRole creates the ClusterRole of base/rbac/<file>, as the install manifests ship it.
func ApplyShippedClusterRole(tb testing.TB, k8s client.Client, file string) {
	tb.Helper()
	data, err := os.ReadFile(filepath.Join(RepoRoot(), "base", "rbac", file))
	if err != nil {
		tb.Fatal(err)
	}
	role := &rbacv1.ClusterRole{}
	if err := yaml.Unmarshal(data, role); err != nil {
		tb.Fatal(err)
	}
	if err := k8s.Create(context.Background(), role); err != nil {
		tb.Fatal(err)
	}
}
