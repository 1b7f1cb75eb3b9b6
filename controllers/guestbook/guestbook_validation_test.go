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

package guestbook

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	. "github.com/onsi/gomega"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"

	webappv1 "github.com/siteops/siteops/apis/webapp/v1"
	"github.com/siteops/siteops/apis/webapp/v1/guestbooktest"
	"github.com/siteops/siteops/test/testenv"
)

// TestGuestbookValidationRejects is the Guestbook part of the admission matrix: every invalid Guestbook is
// rejected by the CRD schema or its CEL rules (Guestbook has no webhook) and the error names the field.
func TestGuestbookValidationRejects(t *testing.T) {
	ns := newNamespace(t)
	cases := guestbooktest.InvalidGuestbooks(ns)
	for _, tc := range cases {
		t.Run(tc.Name, func(t *testing.T) {
			g := NewWithT(t)
			err := k8s.Create(context.Background(), tc.Object)
			g.Expect(err).To(HaveOccurred(), "accepted: %v", tc.Object.Object)
			g.Expect(apierrors.IsInvalid(err)).To(BeTrue(), "not a validation error: %v", err)
			g.Expect(err.Error()).To(ContainSubstring(tc.Field))
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
