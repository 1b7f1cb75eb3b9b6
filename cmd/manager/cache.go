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
	"slices"

	appsv1 "k8s.io/api/apps/v1"
	kbatchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/selection"
	toolscache "k8s.io/client-go/tools/cache"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"

	batchv1 "github.com/siteops/siteops/apis/batch/v1"
	gitopsv1alpha1 "github.com/siteops/siteops/apis/gitops/v1alpha1"
	webappv1 "github.com/siteops/siteops/apis/webapp/v1"
	"github.com/siteops/siteops/controllers/guestbook"
)

// cacheOptions are the manager's informer cache options for the shard that shard selects.
//   - Every cached object drops its managedFields, as kube-controller-manager's informers do: the apiserver
//     tracks server-side apply's field ownership itself, and on a Job or CronJob they are a large part of the
//     object, kept in memory for every cached one. Deployments and Services keep one entry, the
//     Guestbook controller's (guestbook.FieldOwner): it reads what it last applied there, and sends no apply
//     that would change nothing.
//   - Pods are cached only when they carry webappv1.LabelGuestbook: the Guestbook controller is the only reader
//     and selects by that label, and every other pod in the cluster (each CronJob's Job pods among them)
//     would otherwise be decoded and kept on every change.
//   - CronJobs, Guestbooks and SiteSyncs, and the Jobs, Deployments, Services and pods the controllers create
//     for them (which carry their owner's apis.ShardLabel), are cached only when shard matches them, so each
//     shard's manager holds only its own objects. The Guestbooks' ConfigMaps are the users' and carry no shard
//     label: only their metadata is cached, by every shard (the Guestbook controller reads their data uncached).
//     So are the Argo CD Applications SiteSync watches, which Argo CD creates.
func cacheOptions(shard labels.Selector) cache.Options {
	applied := cache.ByObject{Transform: keepManagedFieldsOf(guestbook.FieldOwner)}
	byObject := map[client.Object]cache.ByObject{&corev1.Pod{}: {Label: withRequirements(guestbookPods(), shard)}}
	if !shard.Empty() {
		for _, obj := range []client.Object{&batchv1.CronJob{}, &webappv1.Guestbook{}, &gitopsv1alpha1.SiteSync{},
			&kbatchv1.Job{}} {
			byObject[obj] = cache.ByObject{Label: shard}
		}
		applied.Label = shard
	}
	byObject[&appsv1.Deployment{}], byObject[&corev1.Service{}] = applied, applied
	return cache.Options{
		DefaultTransform: cache.TransformStripManagedFields(),
		ByObject:         byObject,
	}
}

// keepManagedFieldsOf is a cache transform that drops every managedFields entry but manager's.
func keepManagedFieldsOf(manager string) toolscache.TransformFunc {
	return func(in any) (any, error) {
		if obj, err := meta.Accessor(in); err == nil && obj.GetManagedFields() != nil {
			obj.SetManagedFields(slices.DeleteFunc(obj.GetManagedFields(), func(e metav1.ManagedFieldsEntry) bool {
				return e.Manager != manager
			}))
		}
		return in, nil
	}
}

// guestbookPods selects the pods that carry webappv1.LabelGuestbook.
func guestbookPods() labels.Selector {
	req, err := labels.NewRequirement(webappv1.LabelGuestbook, selection.Exists, nil)
	if err != nil {
		panic(err) // a constant, valid label key
	}
	return labels.NewSelector().Add(*req)
}

// withRequirements is sel with every requirement of more added: the objects both select.
func withRequirements(sel, more labels.Selector) labels.Selector {
	reqs, _ := more.Requirements()
	return sel.Add(reqs...)
}
