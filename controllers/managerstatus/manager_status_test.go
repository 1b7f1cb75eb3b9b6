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

package managerstatus

import (
	"context"
	"os"
	"testing"
	"time"

	rolloutsv1alpha1 "github.com/argoproj/argo-rollouts/pkg/apis/rollouts/v1alpha1"
	"github.com/go-logr/logr"
	. "github.com/onsi/gomega"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/config"
	"sigs.k8s.io/controller-runtime/pkg/metrics/server"

	gitopsv1alpha1 "github.com/siteops/siteops/apis/gitops/v1alpha1"
	"github.com/siteops/siteops/test/testenv"
)

var k8s client.Client

// TestMain starts a real kube-apiserver with siteops' and Argo Rollouts' CRDs (Rollout, AnalysisRun, from the
// module cache) and a manager running the Reconciler.
func TestMain(m *testing.M) {
	os.Exit(func() int {
		ctrl.SetLogger(logr.Discard())
		crds, err := testenv.ArgoRolloutsCRDs()
		if err != nil {
			panic(err)
		}
		env, err := testenv.Start(testenv.Options{CRDPaths: crds})
		if err != nil {
			panic(err)
		}
		defer func() { _ = env.Stop() }()
		mgr, err := ctrl.NewManager(env.Config, ctrl.Options{Scheme: env.Scheme, Metrics: server.Options{BindAddress: "0"},
			HealthProbeBindAddress: "0", Controller: config.Controller{SkipNameValidation: ptr.To(true)}})
		if err != nil {
			panic(err)
		}
		// A short interval so the test sees Rollout changes quickly; Eventually polls, nothing is timed.
		if err := (&Reconciler{Client: mgr.GetClient(), Interval: 200 * time.Millisecond}).SetupWithManager(mgr); err != nil {
			panic(err)
		}
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		go func() { _ = mgr.Start(ctx) }()
		if k8s, err = client.New(env.Config, client.Options{Scheme: env.Scheme}); err != nil {
			panic(err)
		}
		return m.Run()
	}())
}

// TestSiteSyncStatusShowsManagerRolloutImagesAndShadowVerdict creates a real Rollout paused with a preview, its
// stable ReplicaSet and pre-promotion AnalysisRuns, and follows SiteSync status.manager through the analysis
// and the promotion; a second SiteSync without a reference reports the default Rollout once it exists.
func TestSiteSyncStatusShowsManagerRolloutImagesAndShadowVerdict(t *testing.T) {
	g := NewWithT(t)
	g.SetDefaultEventuallyTimeout(time.Minute)
	ctx := context.Background()
	const ns = "manager-status"
	g.Expect(k8s.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}})).To(Succeed())
	ss := siteSync(ns, "sites", &gitopsv1alpha1.ManagerRolloutReference{Namespace: ns, Name: "mgr"})
	g.Expect(k8s.Create(ctx, ss)).To(Succeed())
	manager := func(obj *gitopsv1alpha1.SiteSync) func(Gomega) *gitopsv1alpha1.ManagerStatus {
		return func(g Gomega) *gitopsv1alpha1.ManagerStatus {
			got := &gitopsv1alpha1.SiteSync{}
			g.Expect(k8s.Get(ctx, client.ObjectKeyFromObject(obj), got)).To(Succeed())
			return got.Status.Manager
		}
	}

	// The Rollout is paused with revision bbb (v0.2.0) as the preview; aaa (v0.1.0) is stable.
	ro := rollout(ns, "mgr", "ghcr.io/siteops/manager:v0.2.0")
	g.Expect(k8s.Create(ctx, ro)).To(Succeed())
	ro.Status = rolloutsv1alpha1.RolloutStatus{Phase: rolloutsv1alpha1.RolloutPhasePaused, Message: "BlueGreenPause",
		CurrentPodHash: "bbb", StableRS: "aaa"}
	g.Expect(k8s.Status().Update(ctx, ro)).To(Succeed())
	g.Expect(k8s.Create(ctx, replicaSet(ns, "mgr-aaa", "ghcr.io/siteops/manager:v0.1.0"))).To(Succeed())
	g.Eventually(manager(ss)).Should(Equal(&gitopsv1alpha1.ManagerStatus{
		Rollout: ns + "/mgr", Phase: "Paused", Message: "BlueGreenPause",
		StableImage: "ghcr.io/siteops/manager:v0.1.0", PreviewImage: "ghcr.io/siteops/manager:v0.2.0",
		ShadowVerdict: gitopsv1alpha1.ShadowVerdictNone,
	}))

	// Runs of another revision and an earlier failed run of bbb do not count; the newest run of bbb does.
	createRun(g, ro, "mgr-aaa-1-pre", "aaa", rolloutsv1alpha1.AnalysisPhaseSuccessful)
	createRun(g, ro, "mgr-bbb-2-pre", "bbb", rolloutsv1alpha1.AnalysisPhaseFailed)
	g.Eventually(func(g Gomega) gitopsv1alpha1.ShadowVerdict { return manager(ss)(g).ShadowVerdict }).
		Should(Equal(gitopsv1alpha1.ShadowVerdictFailed))
	time.Sleep(1100 * time.Millisecond) // creationTimestamp has one-second resolution: the retry is newer
	latest := createRun(g, ro, "mgr-bbb-3-pre", "bbb", rolloutsv1alpha1.AnalysisPhaseRunning)
	g.Eventually(func(g Gomega) string { m := manager(ss)(g); return m.AnalysisRun + "=" + string(m.ShadowVerdict) }).
		Should(Equal("mgr-bbb-3-pre=Running"))
	latest.Status.Phase = rolloutsv1alpha1.AnalysisPhaseSuccessful
	g.Expect(k8s.Update(ctx, latest)).To(Succeed())
	g.Eventually(func(g Gomega) gitopsv1alpha1.ShadowVerdict { return manager(ss)(g).ShadowVerdict }).
		Should(Equal(gitopsv1alpha1.ShadowVerdictSuccessful))

	// Promoted: bbb is stable, there is no preview.
	ro.Status.Phase, ro.Status.Message, ro.Status.StableRS = rolloutsv1alpha1.RolloutPhaseHealthy, "", "bbb"
	g.Expect(k8s.Status().Update(ctx, ro)).To(Succeed())
	g.Eventually(manager(ss)).Should(Equal(&gitopsv1alpha1.ManagerStatus{
		Rollout: ns + "/mgr", Phase: "Healthy", StableImage: "ghcr.io/siteops/manager:v0.2.0",
		ShadowVerdict: gitopsv1alpha1.ShadowVerdictSuccessful, AnalysisRun: "mgr-bbb-3-pre",
	}))

	// Without spec.managerRollout the default siteops-system/siteops-manager is reported once it exists.
	dflt := siteSync(ns, "defaulted", nil)
	g.Expect(k8s.Create(ctx, dflt)).To(Succeed())
	g.Expect(k8s.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: gitopsv1alpha1.DefaultManagerRolloutNamespace}})).To(Succeed())
	g.Expect(k8s.Create(ctx, rollout(gitopsv1alpha1.DefaultManagerRolloutNamespace, gitopsv1alpha1.DefaultManagerRolloutName,
		"ghcr.io/siteops/manager:v9"))).To(Succeed())
	g.Eventually(func(g Gomega) string {
		m := manager(dflt)(g)
		g.Expect(m).NotTo(BeNil())
		return m.Rollout + " " + m.StableImage + " " + string(m.ShadowVerdict)
	}).Should(Equal("siteops-system/siteops-manager ghcr.io/siteops/manager:v9 None"))
}

func siteSync(ns, name string, ref *gitopsv1alpha1.ManagerRolloutReference) *gitopsv1alpha1.SiteSync {
	return &gitopsv1alpha1.SiteSync{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name},
		Spec: gitopsv1alpha1.SiteSyncSpec{Source: gitopsv1alpha1.GitSource{URL: "file:///nonexistent/sites.git"},
			ManagerRollout: ref}}
}

var managerLabels = map[string]string{"app.kubernetes.io/name": "siteops"}

func podTemplate(image string) corev1.PodTemplateSpec {
	return corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: managerLabels},
		Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "manager", Image: image}}}}
}

func rollout(ns, name, image string) *rolloutsv1alpha1.Rollout {
	return &rolloutsv1alpha1.Rollout{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name},
		Spec: rolloutsv1alpha1.RolloutSpec{
			Replicas: ptr.To[int32](1),
			Selector: &metav1.LabelSelector{MatchLabels: managerLabels},
			Template: podTemplate(image),
			Strategy: rolloutsv1alpha1.RolloutStrategy{BlueGreen: &rolloutsv1alpha1.BlueGreenStrategy{
				ActiveService: "active", PreviewService: "preview", AutoPromotionEnabled: ptr.To(false)}},
		}}
}

func replicaSet(ns, name, image string) *appsv1.ReplicaSet {
	return &appsv1.ReplicaSet{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name},
		Spec: appsv1.ReplicaSetSpec{Selector: &metav1.LabelSelector{MatchLabels: managerLabels}, Template: podTemplate(image)}}
}

// createRun creates a pre-promotion AnalysisRun of ro for podHash, labelled and owned as Argo Rollouts does, in
// phase.
func createRun(g Gomega, ro *rolloutsv1alpha1.Rollout, name, podHash string, phase rolloutsv1alpha1.AnalysisPhase) *rolloutsv1alpha1.AnalysisRun {
	run := &rolloutsv1alpha1.AnalysisRun{
		ObjectMeta: metav1.ObjectMeta{Namespace: ro.Namespace, Name: name,
			Labels: map[string]string{rolloutsv1alpha1.RolloutTypeLabel: rolloutsv1alpha1.RolloutTypePrePromotionLabel,
				rolloutsv1alpha1.DefaultRolloutUniqueLabelKey: podHash},
			OwnerReferences: []metav1.OwnerReference{*metav1.NewControllerRef(ro, rolloutsv1alpha1.SchemeGroupVersion.WithKind("Rollout"))}},
		Spec: rolloutsv1alpha1.AnalysisRunSpec{Metrics: []rolloutsv1alpha1.Metric{{Name: "unexpected-writes",
			Provider: rolloutsv1alpha1.MetricProvider{Web: &rolloutsv1alpha1.WebMetric{URL: "http://preview:8082/shadow"}}}}},
	}
	run.Status.Phase = phase // the AnalysisRun CRD has no status subresource
	g.Expect(k8s.Create(context.Background(), run)).To(Succeed())
	return run
}
