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
	"strings"
	"testing"
	"time"

	. "github.com/onsi/gomega"
	appsv1 "k8s.io/api/apps/v1"
	kbatchv1 "k8s.io/api/batch/v1"
	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/siteops/siteops/apis"
	"github.com/siteops/siteops/apis/batch/v1/cronjobtest"
	gitopsv1alpha1 "github.com/siteops/siteops/apis/gitops/v1alpha1"
	"github.com/siteops/siteops/apis/gitops/v1alpha1/sitesynctest"
	webappv1 "github.com/siteops/siteops/apis/webapp/v1"
	"github.com/siteops/siteops/test/testenv"
)

// shardNS holds the sharding tests' objects. Every object's name starts with its shard ("main-", "shard1-",
// "shard2-"), and so does every object a controller makes for it: a write names its shard.
const shardNS = "shards"

// shardSelector is the --watch-label-selector of shard s, as base/components/shard sets it.
func shardSelector(s string) string {
	return "--watch-label-selector=" + apis.ShardLabel + " in (" + s + ")"
}

// TestShardedManagersEachReconcileOnlyTheirShard runs three manager processes on one apiserver: the main one
// with the default --watch-label-selector and one per shard, none given a Lease name. Each shard has a
// CronJob, a Guestbook (with an unlabelled ConfigMap) and a SiteSync. Each manager leads its own Lease and
// reconciles its shard's objects and only those: every write a manager sends (dry runs included) is for its
// shard, the Jobs and Deployments carry their owner's shard label. Then shard1's manager is killed: shard2's
// and the main manager's objects are still reconciled (a new CronJob gets its Job, a Guestbook resize reaches
// its Deployment) while a new shard1 CronJob waits, and it gets its Job once shard1's manager is back.
func TestShardedManagersEachReconcileOnlyTheirShard(t *testing.T) {
	g := NewWithT(t)
	ctx := context.Background()
	env, err := testenv.Start(testenv.Options{})
	g.Expect(err).NotTo(HaveOccurred())
	t.Cleanup(func() { _ = env.Stop() })
	k8s, err := client.New(env.Config, client.Options{Scheme: env.Scheme})
	g.Expect(err).NotTo(HaveOccurred())
	for _, ns := range []string{systemNS, shardNS} {
		g.Expect(k8s.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}})).To(Succeed())
	}

	managers := map[string]*shardManager{
		"main":   startShardManager(t, env, "main"),
		"shard1": startShardManager(t, env, "shard1", shardSelector("shard1")),
		"shard2": startShardManager(t, env, "shard2", shardSelector("shard2")),
	}
	for shard := range managers {
		createShardObjects(t, k8s, shard)
	}
	for shard := range managers {
		expectReconciled(t, k8s, shard)
	}
	// Each shard led its own Lease, named after the shard; the main manager kept the one it always had.
	holders := map[string]bool{}
	for shard, lease := range map[string]string{"main": leaseID, "shard1": leaseID + "-shard1", "shard2": leaseID +
		"-shard2"} {
		l := &coordinationv1.Lease{}
		g.Expect(k8s.Get(ctx, client.ObjectKey{Namespace: systemNS, Name: lease}, l)).To(Succeed(), "Lease of %s", shard)
		g.Expect(l.Spec.HolderIdentity).NotTo(BeNil())
		holders[*l.Spec.HolderIdentity] = true
	}
	g.Expect(holders).To(HaveLen(3), "three managers, three leaders")
	expectWritesOnlyToOwnShard(t, managers)

	// shard1's manager dies. Objects created after shard1's are reconciled by the others, it waits.
	managers["shard1"].kill(t)
	createCronJob(t, k8s, "shard1", "shard1-late")
	createCronJob(t, k8s, "shard2", "shard2-late")
	createCronJob(t, k8s, "main", "main-late")
	resizeGuestbook(t, k8s, "shard2-gb", 3)
	g.Eventually(func(g Gomega) {
		g.Expect(jobsOf(g, k8s, named("shard2-late"))).NotTo(BeEmpty())
		g.Expect(jobsOf(g, k8s, named("main-late"))).NotTo(BeEmpty())
		d := &appsv1.Deployment{}
		g.Expect(k8s.Get(ctx, client.ObjectKey{Namespace: shardNS, Name: "shard2-gb"}, d)).To(Succeed())
		g.Expect(d.Spec.Replicas).To(HaveValue(BeEquivalentTo(3)))
	}, eventually, time.Second).Should(Succeed())
	g.Expect(jobsOf(g, k8s, named("shard1-late"))).To(BeEmpty(), "no manager but shard1's reconciles shard1")
	expectWritesOnlyToOwnShard(t, managers)

	// shard1's manager is back (it waits out its Lease, which the killed one did not release) and catches up.
	managers["shard1"] = startShardManager(t, env, "shard1-again", shardSelector("shard1"))
	g.Eventually(func(g Gomega) {
		g.Expect(jobsOf(g, k8s, named("shard1-late"))).NotTo(BeEmpty())
	}, eventually, time.Second).Should(Succeed())
	expectWritesOnlyToOwnShard(t, managers)
}

// named is an object of shardNS named name, for jobsOf.
func named(name string) client.Object {
	return &metav1.PartialObjectMetadata{ObjectMeta: metav1.ObjectMeta{Namespace: shardNS, Name: name}}
}

// shardLabels labels an object for shard, or leaves it unlabelled for the main manager.
func shardLabels(shard string) map[string]string {
	if shard == "main" {
		return nil
	}
	return map[string]string{apis.ShardLabel: shard}
}

// createShardObjects creates shard's CronJob, Guestbook with its (unlabelled) ConfigMap, and SiteSync.
func createShardObjects(t *testing.T, k8s client.Client, shard string) {
	t.Helper()
	g, ctx := NewWithT(t), context.Background()
	createCronJob(t, k8s, shard, shard+"-cj")
	g.Expect(k8s.Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: shardNS, Name: shard + "-cfg"},
		Data: map[string]string{"k": "v"}})).To(Succeed())
	g.Expect(k8s.Create(ctx, &webappv1.Guestbook{
		ObjectMeta: metav1.ObjectMeta{Namespace: shardNS, Name: shard + "-gb", Labels: shardLabels(shard)},
		Spec:       webappv1.GuestbookSpec{Size: 2, ConfigMapName: shard + "-cfg"}})).To(Succeed())
	ss := sitesynctest.Valid(shardNS)
	ss.Name, ss.Labels = shard+"-ss", shardLabels(shard)
	ss.Spec.Source.URL = "https://127.0.0.1:1/config.git" // refused at once: the SiteSync reports it
	ss.Spec.Interval = &metav1.Duration{Duration: time.Hour}
	g.Expect(k8s.Create(ctx, ss)).To(Succeed())
}

// createCronJob creates a CronJob of shard that is due at once for the managers' clock.
func createCronJob(t *testing.T, k8s client.Client, shard, name string) {
	t.Helper()
	cj := cronjobtest.Valid(shardNS, name)
	cj.Labels = shardLabels(shard)
	cj.Spec.StartingDeadlineSeconds = ptr.To[int64](300)
	NewWithT(t).Expect(k8s.Create(context.Background(), cj)).To(Succeed())
}

// resizeGuestbook sets a Guestbook's size.
func resizeGuestbook(t *testing.T, k8s client.Client, name string, size int32) {
	t.Helper()
	g, ctx := NewWithT(t), context.Background()
	gb := &webappv1.Guestbook{}
	g.Expect(k8s.Get(ctx, client.ObjectKey{Namespace: shardNS, Name: name}, gb)).To(Succeed())
	before := gb.DeepCopy()
	gb.Spec.Size = size
	g.Expect(k8s.Patch(ctx, gb, client.MergeFrom(before))).To(Succeed())
}

// expectReconciled waits for shard's objects to be reconciled: the CronJob's Job and the Guestbook's
// Deployment carry the shard's label (the Deployment also proves the unlabelled ConfigMap was read), and the
// SiteSync reports its unreachable source.
func expectReconciled(t *testing.T, k8s client.Client, shard string) {
	t.Helper()
	g, ctx := NewWithT(t), context.Background()
	want := shardLabels(shard)[apis.ShardLabel]
	g.Eventually(func(g Gomega) {
		jobs := jobsOf(g, k8s, named(shard+"-cj"))
		g.Expect(jobs).NotTo(BeEmpty())
		d := &appsv1.Deployment{}
		g.Expect(k8s.Get(ctx, client.ObjectKey{Namespace: shardNS, Name: shard + "-gb"}, d)).To(Succeed())
		g.Expect(d.Labels[apis.ShardLabel]).To(Equal(want))
		g.Expect(d.Spec.Template.Labels[apis.ShardLabel]).To(Equal(want))
		ss := &gitopsv1alpha1.SiteSync{}
		g.Expect(k8s.Get(ctx, client.ObjectKey{Namespace: shardNS, Name: shard + "-ss"}, ss)).To(Succeed())
		g.Expect(meta.FindStatusCondition(ss.Status.Conditions, gitopsv1alpha1.ConditionReady)).NotTo(BeNil())
	}, eventually, time.Second).Should(Succeed())
	for _, name := range jobsOf(g, k8s, named(shard+"-cj")) {
		job := &metav1.PartialObjectMetadata{}
		job.SetGroupVersionKind(kbatchv1.SchemeGroupVersion.WithKind("Job"))
		g.Expect(k8s.Get(ctx, client.ObjectKey{Namespace: shardNS, Name: name}, job)).To(Succeed())
		g.Expect(job.Labels[apis.ShardLabel]).To(Equal(want), "Job %s", name)
	}
}

// expectWritesOnlyToOwnShard checks every manager's writes so far: each one is for an object of the
// manager's shard, and each manager wrote to each kind it reconciles (it did its work, not nothing).
func expectWritesOnlyToOwnShard(t *testing.T, managers map[string]*shardManager) {
	t.Helper()
	for shard, m := range managers {
		kinds := map[string]bool{}
		for _, w := range m.writes() {
			if w.Namespace != shardNS || !strings.HasPrefix(w.Name, shard+"-") {
				t.Errorf("manager %s wrote %s %s %s/%s (dry run %v): not its shard", m.name, w.Verb, w.Kind, w.Namespace, w.Name,
					w.DryRun)
			}
			if kind, _, _ := strings.Cut(w.Kind, "/"); !w.DryRun {
				kinds[kind] = true
			}
		}
		for _, kind := range []string{"CronJob", "Job", "Guestbook", "Deployment", "Service", "SiteSync"} {
			if !kinds[kind] && m.name == shard {
				t.Errorf("manager %s wrote no %s", m.name, kind)
			}
		}
	}
}
