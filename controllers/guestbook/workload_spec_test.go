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
	"testing"

	. "github.com/onsi/gomega"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	webappv1 "github.com/siteops/siteops/apis/webapp/v1"
)

func TestDesiredDeploymentAndServices(t *testing.T) {
	cases := []struct {
		name         string
		spec         webappv1.GuestbookSpec
		image, alias string
		port         int32
	}{
		{"defaults when the CRD did not fill them", webappv1.GuestbookSpec{Size: 2, ConfigMapName: "cfg"},
			webappv1.DefaultImage, "Name", webappv1.DefaultPort},
		{"explicit values", webappv1.GuestbookSpec{Size: 4, ConfigMapName: "cfg", Alias: webappv1.AliasPhone,
			Image: "example.com/gb:v2", Port: 9090}, "example.com/gb:v2", "Phone", 9090},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			g := NewWithT(t)
			gb := &webappv1.Guestbook{ObjectMeta: metav1.ObjectMeta{Name: "gb", Namespace: "ns", UID: "u1"}, Spec: tc.spec}
			d := desiredDeployment(gb, "h1")
			g.Expect(*d.Spec.Replicas).To(Equal(tc.spec.Size))
			g.Expect(d.OwnerReferences).To(HaveLen(1))
			g.Expect(*d.OwnerReferences[0].UID).To(BeEquivalentTo("u1"))
			g.Expect(*d.OwnerReferences[0].Controller).To(BeTrue())
			g.Expect(d.Spec.Selector.MatchLabels).To(Equal(map[string]string{webappv1.LabelGuestbook: "gb"}))
			g.Expect(d.Spec.Template.Labels).To(HaveKeyWithValue(webappv1.LabelGuestbook, "gb"))
			g.Expect(d.Spec.Template.Annotations).To(Equal(map[string]string{webappv1.AnnotationConfigHash: "h1"}))
			c := d.Spec.Template.Spec.Containers[0]
			g.Expect(*c.Image).To(Equal(tc.image))
			g.Expect(*c.Ports[0].ContainerPort).To(Equal(tc.port))
			g.Expect(*c.Env[0].Name).To(Equal("GUESTBOOK_ALIAS"))
			g.Expect(*c.Env[0].Value).To(Equal(tc.alias))
			g.Expect(*d.Spec.Template.Spec.Volumes[0].ConfigMap.Name).To(Equal("cfg"))

			active := desiredService(gb, "gb", webappv1.RoleActive)
			g.Expect(active.Spec.Selector).To(Equal(map[string]string{webappv1.LabelGuestbook: "gb",
				webappv1.LabelRole: "active"}))
			g.Expect(*active.Spec.Ports[0].Port).To(Equal(tc.port))
			standby := desiredService(gb, standbyServiceName(gb), webappv1.RoleStandby)
			g.Expect(*standby.Name).To(Equal("gb-standby"))
			g.Expect(standby.Spec.Selector).To(HaveKeyWithValue(webappv1.LabelRole, "standby"))
		})
	}
}
