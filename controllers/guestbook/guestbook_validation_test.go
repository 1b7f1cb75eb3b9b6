package guestbook

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	. "github.com/onsi/gomega"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"

	webappv1 "github.com/siteops/siteops/apis/webapp/v1"
	"github.com/siteops/siteops/test/testenv"
)

// rawGuestbook is a Guestbook as a user would write it, so tests can send what the Go types cannot hold.
func rawGuestbook(ns, name string, spec map[string]any) *unstructured.Unstructured {
	u := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": webappv1.GroupVersion.String(),
		"kind":       "Guestbook",
		"metadata":   map[string]any{"name": name, "namespace": ns},
	}}
	if spec != nil {
		u.Object["spec"] = spec
	}
	return u
}

// validSpec is the seed sample's spec with changes applied (a nil value removes the field).
func validSpec(changes map[string]any) map[string]any {
	spec := map[string]any{"size": int64(1), "configMapName": "myconfig", "alias": "Address"}
	for k, v := range changes {
		if v == nil {
			delete(spec, k)
		} else {
			spec[k] = v
		}
	}
	return spec
}

// TestGuestbookValidationRejects is the Guestbook part of the admission matrix: every invalid Guestbook is
// rejected by the CRD schema or its CEL rules (Guestbook has no webhook) and the error names the field.
func TestGuestbookValidationRejects(t *testing.T) {
	ns := newNamespace(t)
	cases := []struct {
		name  string
		gb    *unstructured.Unstructured
		field string
	}{
		{"size 0", rawGuestbook(ns, "a", validSpec(map[string]any{"size": int64(0)})), "spec.size"},
		{"size 11", rawGuestbook(ns, "a", validSpec(map[string]any{"size": int64(11)})), "spec.size"},
		{"size negative", rawGuestbook(ns, "a", validSpec(map[string]any{"size": int64(-1)})), "spec.size"},
		{"size missing", rawGuestbook(ns, "a", validSpec(map[string]any{"size": nil})), "spec.size"},
		{"size not a number", rawGuestbook(ns, "a", validSpec(map[string]any{"size": "three"})), "spec.size"},
		{"configMapName of 16 chars", rawGuestbook(ns, "a", validSpec(map[string]any{"configMapName": strings.Repeat("c", 16)})), "spec.configMapName"},
		{"configMapName empty", rawGuestbook(ns, "a", validSpec(map[string]any{"configMapName": ""})), "spec.configMapName"},
		{"configMapName missing", rawGuestbook(ns, "a", validSpec(map[string]any{"configMapName": nil})), "spec.configMapName"},
		{"configMapName not a DNS label", rawGuestbook(ns, "a", validSpec(map[string]any{"configMapName": "My_Config"})), "spec.configMapName"},
		{"alias Email", rawGuestbook(ns, "a", validSpec(map[string]any{"alias": "Email"})), "spec.alias"},
		{"alias in the wrong case", rawGuestbook(ns, "a", validSpec(map[string]any{"alias": "phone"})), "spec.alias"},
		{"alias empty", rawGuestbook(ns, "a", validSpec(map[string]any{"alias": ""})), "spec.alias"},
		{"image empty", rawGuestbook(ns, "a", validSpec(map[string]any{"image": ""})), "spec.image"},
		{"image with a space", rawGuestbook(ns, "a", validSpec(map[string]any{"image": "nginx latest"})), "spec.image"},
		{"image of 256 chars", rawGuestbook(ns, "a", validSpec(map[string]any{"image": strings.Repeat("i", 256)})), "spec.image"},
		{"port 0", rawGuestbook(ns, "a", validSpec(map[string]any{"port": int64(0)})), "spec.port"},
		{"port 65536", rawGuestbook(ns, "a", validSpec(map[string]any{"port": int64(65536)})), "spec.port"},
		{"spec missing", rawGuestbook(ns, "a", nil), "spec"},
		{"name of 56 chars", rawGuestbook(ns, strings.Repeat("n", 56), validSpec(nil)), "metadata.name"},
		{"name starting with a digit", rawGuestbook(ns, "1shop", validSpec(nil)), "metadata.name"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			g := NewWithT(t)
			err := k8s.Create(context.Background(), tc.gb)
			g.Expect(err).To(HaveOccurred(), "accepted: %v", tc.gb.Object)
			g.Expect(apierrors.IsInvalid(err)).To(BeTrue(), "not a validation error: %v", err)
			g.Expect(err.Error()).To(ContainSubstring(tc.field))
			t.Log(err)
		})
	}
}

// TestGuestbookSeedSampleAccepted creates base/samples/webapp_v1_guestbook.yaml as written and checks the
// defaults the CRD fills in.
func TestGuestbookSeedSampleAccepted(t *testing.T) {
	g := NewWithT(t)
	ns := newNamespace(t)
	data, err := os.ReadFile(filepath.Join(testenv.RepoRoot(), "base", "samples", "webapp_v1_guestbook.yaml"))
	g.Expect(err).NotTo(HaveOccurred())
	u := &unstructured.Unstructured{}
	g.Expect(yaml.Unmarshal(data, &u.Object)).To(Succeed())
	u.SetNamespace(ns)
	g.Expect(k8s.Create(context.Background(), u)).To(Succeed())

	got := &webappv1.Guestbook{}
	g.Expect(k8s.Get(context.Background(), client.ObjectKeyFromObject(u), got)).To(Succeed())
	g.Expect(got.Spec).To(Equal(webappv1.GuestbookSpec{
		Size: 1, ConfigMapName: "myconfig", Alias: webappv1.AliasAddress,
		Image: webappv1.DefaultImage, Port: webappv1.DefaultPort,
	}))
}

// TestGuestbookValidationOnUpdate checks the schema also guards changes: scaling to 11 is refused.
func TestGuestbookValidationOnUpdate(t *testing.T) {
	g := NewWithT(t)
	ns := newNamespace(t)
	gb := createGuestbook(t, ns, "upd", 2, "none")
	cur := getGuestbook(g, gb)
	before := cur.DeepCopy()
	cur.Spec.Size = 11
	err := k8s.Patch(context.Background(), cur, client.MergeFrom(before))
	g.Expect(apierrors.IsInvalid(err)).To(BeTrue(), "got %v", err)
	g.Expect(err.Error()).To(ContainSubstring("spec.size"))
}
