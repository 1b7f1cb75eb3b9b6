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

package sitesync

import (
	"context"
	"testing"
	"time"

	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/clock"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/config"
	"sigs.k8s.io/controller-runtime/pkg/metrics/server"

	gitopsv1alpha1 "github.com/siteops/siteops/apis/gitops/v1alpha1"
	"github.com/siteops/siteops/test/gitserver"
	"github.com/siteops/siteops/test/testenv"
)

// TestManagerWithoutArgoCDStartsAndSaysDeliveryIsNotObserved: on a control plane without Argo CD's
// Application CRD the SiteSync controller sets up (no watch of a missing kind), renders, and every site says
// NotObserved, Ready says why, status.delivered stays empty.
func TestManagerWithoutArgoCDStartsAndSaysDeliveryIsNotObserved(t *testing.T) {
	useSuite(t) // for the Git server
	g := NewWithT(t)
	env, err := testenv.Start(testenv.Options{})
	g.Expect(err).NotTo(HaveOccurred())
	t.Cleanup(func() { _ = env.Stop() })
	k8s, err := client.New(env.Config, client.Options{Scheme: env.Scheme})
	g.Expect(err).NotTo(HaveOccurred())

	mgr, err := ctrl.NewManager(env.Config, ctrl.Options{
		Scheme: env.Scheme, Metrics: server.Options{BindAddress: "0"}, HealthProbeBindAddress: "0",
		Controller: config.Controller{SkipNameValidation: ptr.To(true)},
	})
	g.Expect(err).NotTo(HaveOccurred())
	r := &Reconciler{Client: mgr.GetClient(), Scheme: mgr.GetScheme(), Clock: clock.RealClock{}, WorkDir: t.TempDir()}
	g.Expect(r.SetupWithManager(mgr)).To(Succeed())
	g.Expect(r.deliveryObserved).To(BeFalse())
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- mgr.Start(ctx) }()
	t.Cleanup(func() {
		cancel()
		g.Expect(<-done).To(Succeed())
	})

	ns := "no-argocd"
	g.Expect(k8s.Create(t.Context(), &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}})).To(Succeed())
	g.Expect(k8s.Create(t.Context(), &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "git"},
		StringData: map[string]string{"username": gitUser, "password": gitPassword}})).To(Succeed())
	repo := newRepoName(t)
	suite.git.NewRepo(t, repo, configRepo())
	ss := &gitopsv1alpha1.SiteSync{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "sites"},
		Spec: gitopsv1alpha1.SiteSyncSpec{Source: gitopsv1alpha1.GitSource{URL: suite.git.URL(repo),
			Ref:       gitserver.DefaultBranch,
			SecretRef: &gitopsv1alpha1.LocalSecretReference{Name: "git"}}, Interval: &metav1.Duration{Duration: time.Hour}}}
	g.Expect(k8s.Create(t.Context(), ss)).To(Succeed())

	g.Eventually(func(g Gomega) {
		g.Expect(k8s.Get(t.Context(), client.ObjectKeyFromObject(ss), ss)).To(Succeed())
		ready := meta.FindStatusCondition(ss.Status.Conditions, gitopsv1alpha1.ConditionReady)
		g.Expect(ready).NotTo(BeNil())
		g.Expect(ready.Status).To(Equal(metav1.ConditionTrue), ready.Message)
		g.Expect(ready.Message).To(
			HaveSuffix("delivery is not observed: Argo CD's Application kind is not installed on this cluster"))
	}).WithTimeout(waitTimeout).Should(Succeed())
	g.Expect(ss.Status.Sites).To(HaveLen(3))
	for _, s := range ss.Status.Sites {
		g.Expect(s.Delivery).To(Equal(gitopsv1alpha1.DeliveryNotObserved), s.Name)
		g.Expect(s.RenderedCommit).To(Equal(ss.Status.RenderedRevision), s.Name)
	}
	g.Expect(ss.Status.Delivered).To(BeEmpty())
}
