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

package main

import (
	"context"
	"flag"
	"slices"
	"testing"
	"time"

	. "github.com/onsi/gomega"
	appsv1 "k8s.io/api/apps/v1"
	kbatchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"

	batchv1 "github.com/siteops/siteops/apis/batch/v1"
	"github.com/siteops/siteops/apis/batch/v1/cronjobtest"
	gitopsv1alpha1 "github.com/siteops/siteops/apis/gitops/v1alpha1"
	"github.com/siteops/siteops/apis/gitops/v1alpha1/sitesynctest"
	webappv1 "github.com/siteops/siteops/apis/webapp/v1"
	"github.com/siteops/siteops/controllers/guestbook"
	"github.com/siteops/siteops/internal/shard"
	"github.com/siteops/siteops/test/testenv"
)

// TestShardCacheHoldsOnlyItsShard builds the informer cache as the manager does (shard.CacheOptions of the parsed
// --watch-label-selector) for the main manager and for shard1, over CronJobs, Jobs, Guestbooks, Deployments,
// Services, Guestbook pods and SiteSyncs of shard1, shard2 and no shard: listing any kind from a cache
// returns its shard's objects only.
func TestShardCacheHoldsOnlyItsShard(t *testing.T) {
	g := NewWithT(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	env, err := testenv.Start(testenv.Options{})
	g.Expect(err).NotTo(HaveOccurred())
	t.Cleanup(func() { _ = env.Stop() })
	k8s, err := client.New(env.Config, client.Options{Scheme: env.Scheme})
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(k8s.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: shardNS}})).To(Succeed())
	for _, shard := range []string{"main", "shard1", "shard2"} {
		for _, obj := range shardFixtures(shard) {
			g.Expect(k8s.Create(ctx, obj)).To(Succeed(), "%T %s", obj, obj.GetName())
		}
	}

	for name, args := range map[string][]string{"main": nil, "shard1": {shardSelector("shard1")}} {
		o, _, _, err := parseFlags(flag.NewFlagSet("manager", flag.ContinueOnError), args)
		g.Expect(err).NotTo(HaveOccurred())
		opts := shard.CacheOptions(o.watch.Selector(), guestbook.FieldOwner)
		opts.Scheme = env.Scheme
		c, err := cache.New(env.Config, opts)
		g.Expect(err).NotTo(HaveOccurred())
		go func() { _ = c.Start(ctx) }()
		for _, list := range []client.ObjectList{&kbatchv1.JobList{}, &appsv1.DeploymentList{}, &corev1.ServiceList{},
			&corev1.PodList{}, &gitopsv1alpha1.SiteSyncList{}, &webappv1.GuestbookList{}, &batchv1.CronJobList{}} {
			g.Eventually(func(g Gomega) {
				g.Expect(c.List(ctx, list, client.InNamespace(shardNS))).To(Succeed())
				g.Expect(namesOf(g, list)).To(Equal([]string{name + "-x"}), "%T in %s's cache", list, name)
			}, eventually, time.Second).Should(Succeed())
		}
	}
}

// namesOf returns the sorted names of list's items.
func namesOf(g Gomega, list client.ObjectList) []string {
	items, err := meta.ExtractList(list)
	g.Expect(err).NotTo(HaveOccurred())
	var names []string
	for _, it := range items {
		names = append(names, it.(client.Object).GetName())
	}
	slices.Sort(names)
	return names
}

// shardFixtures are one object of each cached kind for shard, each named <shard>-x and labelled as the
// controllers label what they create (the pod as a Guestbook's).
func shardFixtures(shard string) []client.Object {
	om := func() metav1.ObjectMeta {
		return metav1.ObjectMeta{Namespace: shardNS, Name: shard + "-x", Labels: shardLabels(shard)}
	}
	cj := cronjobtest.Valid(shardNS, shard+"-x")
	cj.Labels = shardLabels(shard)
	ss := sitesynctest.Valid(shardNS)
	ss.ObjectMeta = om()
	podMeta := om()
	if podMeta.Labels == nil {
		podMeta.Labels = map[string]string{}
	}
	podMeta.Labels[webappv1.LabelGuestbook] = shard + "-x"
	spec := corev1.PodSpec{RestartPolicy: corev1.RestartPolicyNever,
		Containers: []corev1.Container{{Name: "c", Image: "busybox"}}}
	sel := map[string]string{"app": shard}
	return []client.Object{
		cj, ss,
		&kbatchv1.Job{ObjectMeta: om(), Spec: kbatchv1.JobSpec{Template: corev1.PodTemplateSpec{Spec: spec}}},
		&webappv1.Guestbook{ObjectMeta: om(), Spec: webappv1.GuestbookSpec{Size: 1, ConfigMapName: "cfg"}},
		&appsv1.Deployment{ObjectMeta: om(), Spec: appsv1.DeploymentSpec{
			Selector: &metav1.LabelSelector{MatchLabels: sel},
			Template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: sel},
				Spec: corev1.PodSpec{Containers: spec.Containers}}}},
		&corev1.Service{ObjectMeta: om(), Spec: corev1.ServiceSpec{Selector: sel, Ports: []corev1.ServicePort{{Port: 80}}}},
		&corev1.Pod{ObjectMeta: podMeta, Spec: spec},
	}
}
