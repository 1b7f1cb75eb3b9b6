package guestbook

import (
	"encoding/json"
	"testing"

	. "github.com/onsi/gomega"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	webappv1 "github.com/siteops/siteops/apis/webapp/v1"
)

// TestCoversIgnoresServerDefaultsOnly checks when ensureObject may skip its write: the desired fields are
// all there (server defaults and other fields aside), and not when any desired value differs.
func TestCoversIgnoresServerDefaultsOnly(t *testing.T) {
	gb := &webappv1.Guestbook{ObjectMeta: metav1.ObjectMeta{Name: "gb", Namespace: "ns", UID: "u1"},
		Spec: webappv1.GuestbookSpec{Size: 2, ConfigMapName: "cfg"}}
	// asServer is the desired Deployment as the apiserver would store it: decoded, then defaulted a little.
	asServer := func(mutate func(d *appsv1.Deployment)) *appsv1.Deployment {
		data, err := json.Marshal(desiredDeployment(gb, "h1"))
		if err != nil {
			t.Fatal(err)
		}
		d := &appsv1.Deployment{}
		if err := json.Unmarshal(data, d); err != nil {
			t.Fatal(err)
		}
		d.TypeMeta = metav1.TypeMeta{} // the cache's typed objects carry none
		d.ResourceVersion, d.Generation = "42", 3
		c := &d.Spec.Template.Spec.Containers[0]
		c.TerminationMessagePath, c.ImagePullPolicy = "/dev/termination-log", corev1.PullIfNotPresent
		c.ReadinessProbe.TimeoutSeconds = 1
		d.Spec.Template.Spec.Volumes[0].ConfigMap.DefaultMode = ptr.To[int32](0o644)
		d.Spec.ProgressDeadlineSeconds = ptr.To[int32](600)
		d.Status.Replicas = 2
		if mutate != nil {
			mutate(d)
		}
		return d
	}
	cases := []struct {
		name   string
		have   *appsv1.Deployment
		covers bool
	}{
		{"as written plus server defaults", asServer(nil), true},
		{"an extra label by someone else", asServer(func(d *appsv1.Deployment) { d.Labels["team"] = "web" }), true},
		{"replicas changed", asServer(func(d *appsv1.Deployment) { d.Spec.Replicas = ptr.To[int32](7) }), false},
		{"config hash changed", asServer(func(d *appsv1.Deployment) {
			d.Spec.Template.Annotations[webappv1.AnnotationConfigHash] = "h0"
		}), false},
		{"image changed", asServer(func(d *appsv1.Deployment) { d.Spec.Template.Spec.Containers[0].Image = "x" }), false},
		{"a container added", asServer(func(d *appsv1.Deployment) {
			d.Spec.Template.Spec.Containers = append(d.Spec.Template.Spec.Containers, corev1.Container{Name: "side"})
		}), false},
		{"an env var removed", asServer(func(d *appsv1.Deployment) {
			d.Spec.Template.Spec.Containers[0].Env = d.Spec.Template.Spec.Containers[0].Env[:1]
		}), false},
		{"owner reference dropped", asServer(func(d *appsv1.Deployment) { d.OwnerReferences = nil }), false},
	}
	data, err := json.Marshal(desiredDeployment(gb, "h1"))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			g := NewWithT(t)
			var want map[string]any
			g.Expect(json.Unmarshal(data, &want)).To(Succeed())
			got, err := covers(tc.have, want)
			g.Expect(err).NotTo(HaveOccurred())
			g.Expect(got).To(Equal(tc.covers))
		})
	}
}
