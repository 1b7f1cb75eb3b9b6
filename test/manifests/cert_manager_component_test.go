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
	"os"
	"path/filepath"
	"slices"
	"testing"

	"sigs.k8s.io/kustomize/api/krusty"
	"sigs.k8s.io/kustomize/api/resource"
	"sigs.k8s.io/kustomize/api/types"
	"sigs.k8s.io/kustomize/kyaml/filesys"

	"github.com/siteops/siteops/test/testenv"
)

// render builds a throw-away overlay of base/install with the given components (paths under the repository).
func render(t *testing.T, components ...string) []*resource.Resource {
	t.Helper()
	root := testenv.RepoRoot()
	dir := t.TempDir()
	rel := func(p string) string {
		r, err := filepath.Rel(dir, filepath.Join(root, p))
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	k := "resources: [" + rel("base/install") + "]\n"
	for _, c := range components {
		k += "components: [" + rel(c) + "]\n"
	}
	if err := os.WriteFile(filepath.Join(dir, "kustomization.yaml"), []byte(k), 0o600); err != nil {
		t.Fatal(err)
	}
	opts := krusty.MakeDefaultOptions()
	opts.LoadRestrictions = types.LoadRestrictionsNone
	m, err := krusty.MakeKustomizer(opts).Run(filesys.MakeFsOnDisk(), dir)
	if err != nil {
		t.Fatalf("kustomize build: %v", err)
	}
	return m.Resources()
}

// find returns the one resource of kind named name.
func find(t *testing.T, rs []*resource.Resource, kind, name string) *resource.Resource {
	t.Helper()
	for _, r := range rs {
		if r.GetKind() == kind && r.GetName() == name {
			return r
		}
	}
	t.Fatalf("no %s %s rendered", kind, name)
	return nil
}

func managerArgs(t *testing.T, rs []*resource.Resource) []string {
	t.Helper()
	args, err := find(t, rs, "Rollout", "siteops-manager").GetSlice("spec.template.spec.containers[0].args")
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, a := range args {
		out = append(out, a.(string))
	}
	return out
}

// TestManagerKeepsItsOwnCertificateUnlessTheCertManagerComponentIsUsed: base runs --cert-source=self; the
// cert-manager component switches to files, issues the certificate into the Secret the Rollout mounts, for the
// webhook Service's DNS name, and asks the cainjector to fill both webhook configurations.
func TestManagerKeepsItsOwnCertificateUnlessTheCertManagerComponentIsUsed(t *testing.T) {
	base := render(t)
	if args := managerArgs(t, base); !slices.Contains(args, "--cert-source=self") {
		t.Errorf("base manager args %v lack --cert-source=self", args)
	}

	rs := render(t, "base/components/cert-manager")
	args := managerArgs(t, rs)
	if !slices.Contains(args, "--cert-source=files") || slices.Contains(args, "--cert-source=self") {
		t.Errorf("with cert-manager the manager args are %v, want --cert-source=files only", args)
	}
	cert := find(t, rs, "Certificate", "siteops-serving-cert")
	secret, _ := cert.GetString("spec.secretName")
	mounted := ""
	vols, _ := find(t, rs, "Rollout", "siteops-manager").GetSlice("spec.template.spec.volumes")
	for _, v := range vols {
		if vm, ok := v.(map[string]any); ok && vm["name"] == "webhook-certs" {
			if sec, ok := vm["secret"].(map[string]any); ok {
				mounted, _ = sec["secretName"].(string)
			}
		}
	}
	if secret == "" || secret != mounted {
		t.Errorf("the Certificate writes Secret %q, the Rollout mounts %q", secret, mounted)
	}
	svc := find(t, rs, "Service", "siteops-webhook-service")
	var dns []string
	names, _ := cert.GetSlice("spec.dnsNames")
	for _, n := range names {
		dns = append(dns, n.(string))
	}
	if want := svc.GetName() + "." + svc.GetNamespace() + ".svc"; !slices.Contains(dns, want) {
		t.Errorf("Certificate dnsNames %v lack %s", dns, want)
	}
	for _, kind := range []string{"MutatingWebhookConfiguration", "ValidatingWebhookConfiguration"} {
		for _, r := range rs {
			if r.GetKind() != kind {
				continue
			}
			if got := r.GetAnnotations()["cert-manager.io/inject-ca-from"]; got != cert.GetNamespace()+"/"+cert.GetName() {
				t.Errorf("%s %s inject-ca-from = %q", kind, r.GetName(), got)
			}
		}
	}
}
