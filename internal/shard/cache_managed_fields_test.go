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

package shard

import (
	"context"
	"testing"
	"time"

	. "github.com/onsi/gomega"
	appsv1 "k8s.io/api/apps/v1"
	kbatchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	appsv1ac "k8s.io/client-go/applyconfigurations/apps/v1"
	corev1ac "k8s.io/client-go/applyconfigurations/core/v1"
	metav1ac "k8s.io/client-go/applyconfigurations/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"

	batchv1 "github.com/siteops/siteops/apis/batch/v1"
	"github.com/siteops/siteops/apis/batch/v1/cronjobtest"
	webappv1 "github.com/siteops/siteops/apis/webapp/v1"
	"github.com/siteops/siteops/controllers/guestbook"
	"github.com/siteops/siteops/test/testenv"
)

// TestCacheHoldsObjectsWithoutManagedFields reads a CronJob and a Job the apiserver stored with managedFields
// through a cache built with CacheOptions: both come back without managedFields and otherwise whole (spec,
// owner reference, labels), but for the Job's pod template, which the cache drops; of two pods, the cache
// holds only the one with the Guestbook label; a Deployment and a Service two field managers wrote keep the
// Guestbook controller's entry only.
// cmd/manager's TestMetricsEndpointAfterRealReconciles runs every controller over this cache.
func TestCacheHoldsObjectsWithoutManagedFields(t *testing.T) {
	g := NewWithT(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	env, err := testenv.Start(testenv.Options{})
	g.Expect(err).NotTo(HaveOccurred())
	t.Cleanup(func() { _ = env.Stop() })
	k8s, err := client.New(env.Config, client.Options{Scheme: env.Scheme})
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(k8s.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "cache"}})).To(Succeed())
	cj := cronjobtest.Valid("cache", "nightly")
	g.Expect(k8s.Create(ctx, cj)).To(Succeed())
	job := &kbatchv1.Job{ObjectMeta: metav1.ObjectMeta{Namespace: "cache", Name: "nightly-1",
		Labels:          map[string]string{"app": "nightly"},
		OwnerReferences: []metav1.OwnerReference{*metav1.NewControllerRef(cj, batchv1.GroupVersion.WithKind("CronJob"))}},
		Spec: *cj.Spec.JobTemplate.Spec.DeepCopy()}
	g.Expect(k8s.Create(ctx, job)).To(Succeed())
	g.Expect(job.ManagedFields).NotTo(BeEmpty(), "the apiserver stores managedFields")

	labelled := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "cache", Name: "gb-0",
		Labels: map[string]string{webappv1.LabelGuestbook: "gb"}},
		Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "busybox"}}}}
	other := labelled.DeepCopy()
	other.Name, other.Labels = "nightly-1-x", map[string]string{"app": "nightly"}
	g.Expect(k8s.Create(ctx, labelled)).To(Succeed())
	g.Expect(k8s.Create(ctx, other)).To(Succeed())

	apply := appsv1ac.Deployment("gb", "cache").WithSpec(appsv1ac.DeploymentSpec().WithReplicas(1).
		WithSelector(metav1ac.LabelSelector().WithMatchLabels(map[string]string{"app": "gb"})).
		WithTemplate(corev1ac.PodTemplateSpec().WithLabels(map[string]string{"app": "gb"}).
			WithSpec(corev1ac.PodSpec().WithContainers(corev1ac.Container().WithName("c").WithImage("busybox")))))
	g.Expect(k8s.Apply(ctx, apply, client.FieldOwner(guestbook.FieldOwner))).To(Succeed())
	dep := &appsv1.Deployment{}
	g.Expect(k8s.Get(ctx, client.ObjectKey{Namespace: "cache", Name: "gb"}, dep)).To(Succeed())
	dep.Labels = map[string]string{"by": "someone-else"}
	g.Expect(k8s.Update(ctx, dep, client.FieldOwner("someone-else"))).To(Succeed())
	g.Expect(dep.ManagedFields).To(HaveLen(2))
	svcApply := corev1ac.Service("gb",
		"cache").WithSpec(corev1ac.ServiceSpec().WithSelector(map[string]string{"app": "gb"}).
		WithPorts(corev1ac.ServicePort().WithName("http").WithPort(80)))
	g.Expect(k8s.Apply(ctx, svcApply, client.FieldOwner(guestbook.FieldOwner))).To(Succeed())
	svc := &corev1.Service{}
	g.Expect(k8s.Get(ctx, client.ObjectKey{Namespace: "cache", Name: "gb"}, svc)).To(Succeed())
	svc.Labels = map[string]string{"by": "someone-else"}
	g.Expect(k8s.Update(ctx, svc, client.FieldOwner("someone-else"))).To(Succeed())
	g.Expect(svc.ManagedFields).To(HaveLen(2))

	mainSel, err := labels.Parse(MainSelector) // the main manager's selector, the default
	g.Expect(err).NotTo(HaveOccurred())
	opts := CacheOptions(mainSel, guestbook.FieldOwner)
	opts.Scheme = env.Scheme
	c, err := cache.New(env.Config, opts)
	g.Expect(err).NotTo(HaveOccurred())
	go func() { _ = c.Start(ctx) }()

	var cachedJob kbatchv1.Job
	var cachedCJ batchv1.CronJob
	g.Eventually(func() error { return c.Get(ctx, client.ObjectKeyFromObject(job), &cachedJob) },
		time.Minute).Should(Succeed())
	g.Eventually(func() error { return c.Get(ctx, client.ObjectKeyFromObject(cj), &cachedCJ) },
		time.Minute).Should(Succeed())
	g.Expect(cachedJob.ManagedFields).To(BeEmpty())
	g.Expect(cachedCJ.ManagedFields).To(BeEmpty())
	g.Expect(cachedJob.Labels).To(Equal(job.Labels))
	g.Expect(metav1.GetControllerOf(&cachedJob).UID).To(Equal(cj.UID))
	g.Expect(job.Spec.Template.Spec.Containers).NotTo(BeEmpty())
	g.Expect(cachedJob.Spec.Template).To(Equal(corev1.PodTemplateSpec{}))
	g.Expect(cachedJob.Spec.BackoffLimit).To(Equal(job.Spec.BackoffLimit))
	g.Expect(cachedJob.Spec.Selector).To(Equal(job.Spec.Selector))
	g.Expect(cachedCJ.Spec.Schedule).To(Equal(cj.Spec.Schedule))

	var cachedDep appsv1.Deployment
	g.Eventually(func() error { return c.Get(ctx, client.ObjectKeyFromObject(dep), &cachedDep) },
		time.Minute).Should(Succeed())
	g.Expect(cachedDep.ManagedFields).To(HaveLen(1))
	g.Expect(cachedDep.ManagedFields[0].Manager).To(Equal(guestbook.FieldOwner))
	g.Expect(cachedDep.Labels).To(Equal(dep.Labels))
	var cachedSvc corev1.Service
	g.Eventually(func() error { return c.Get(ctx, client.ObjectKeyFromObject(svc), &cachedSvc) },
		time.Minute).Should(Succeed())
	g.Expect(cachedSvc.ManagedFields).To(HaveLen(1))
	g.Expect(cachedSvc.ManagedFields[0].Manager).To(Equal(guestbook.FieldOwner))

	// Pods: only the Guestbook's.
	var pods corev1.PodList
	g.Eventually(func() error { return c.List(ctx, &pods, client.InNamespace("cache")) }, time.Minute).Should(Succeed())
	g.Expect(pods.Items).To(HaveLen(1))
	g.Expect(pods.Items[0].Name).To(Equal(labelled.Name))
}
