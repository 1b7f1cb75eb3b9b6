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

// Package shard is how a manager keeps to its shard: which objects its informers cache and which Lease it
// leads. Shards follow Flux's convention: objects labelled apis.ShardLabel=<shard>.
package shard

import (
	"crypto/sha256"
	"encoding/hex"
	"slices"

	appsv1 "k8s.io/api/apps/v1"
	kbatchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/selection"
	"k8s.io/apimachinery/pkg/util/validation"
	toolscache "k8s.io/client-go/tools/cache"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/siteops/siteops/apis"
	batchv1 "github.com/siteops/siteops/apis/batch/v1"
	gitopsv1alpha1 "github.com/siteops/siteops/apis/gitops/v1alpha1"
	webappv1 "github.com/siteops/siteops/apis/webapp/v1"
)

// MainSelector selects every object without apis.ShardLabel: the main manager's, so an install without
// shards reconciles what it always did, and adding a shard never has an object reconciled twice.
const MainSelector = "!" + apis.ShardLabel

// CacheOptions are a manager's informer cache options for the shard that sel selects; fieldOwner is the field
// manager whose managedFields entries Deployments and Services keep.
//   - Every cached object drops its managedFields, as kube-controller-manager's informers do: the apiserver
//     tracks server-side apply's field ownership itself, and on a Job or CronJob they are a large part of the
//     object, kept in memory for every cached one. Deployments and Services keep one entry, the
//     Guestbook controller's (fieldOwner): it reads what it last applied there, and sends no apply
//     that would change nothing.
//   - Jobs also drop their pod template: the CronJob controller reads a cached Job's metadata and status only,
//     and the template is much of a Job, kept for each of the thousands of runs a busy cluster keeps.
//   - Pods are cached only when they carry webappv1.LabelGuestbook: the Guestbook controller is the only reader
//     and selects by that label, and every other pod in the cluster (each CronJob's Job pods among them)
//     would otherwise be decoded and kept on every change.
//   - CronJobs, Guestbooks and SiteSyncs, and the Jobs, Deployments, Services and pods the controllers create
//     for them (which carry their owner's apis.ShardLabel), are cached only when sel matches them, so each
//     shard's manager holds only its own objects. The Guestbooks' ConfigMaps are the users' and carry no shard
//     label: only their metadata is cached, by every shard (the Guestbook controller reads their data uncached).
//     So are the Argo CD Applications SiteSync watches, which Argo CD creates.
func CacheOptions(sel labels.Selector, fieldOwner string) cache.Options {
	applied := cache.ByObject{Transform: keepManagedFieldsOf(fieldOwner)}
	byObject := map[client.Object]cache.ByObject{&corev1.Pod{}: {Label: withRequirements(guestbookPods(), sel)}}
	jobs := cache.ByObject{Transform: withoutPodTemplate(cache.TransformStripManagedFields())}
	if !sel.Empty() {
		for _, obj := range []client.Object{&batchv1.CronJob{}, &webappv1.Guestbook{}, &gitopsv1alpha1.SiteSync{}} {
			byObject[obj] = cache.ByObject{Label: sel}
		}
		applied.Label, jobs.Label = sel, sel
	}
	byObject[&appsv1.Deployment{}], byObject[&corev1.Service{}] = applied, applied
	byObject[&kbatchv1.Job{}] = jobs
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

// withoutPodTemplate is a cache transform that runs next and then empties a Job's pod template.
func withoutPodTemplate(next toolscache.TransformFunc) toolscache.TransformFunc {
	return func(in any) (any, error) {
		out, err := next(in)
		if job, ok := out.(*kbatchv1.Job); ok {
			job.Spec.Template = corev1.PodTemplateSpec{}
		}
		return out, err
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

// LeaseName names a shard's Lease after the default id: id itself for the main manager (the default
// selector) and for one that watches every object, which then compete for one Lease; id-<shard> for a selector
// of one shard (key=x, key==x or key in (x)); otherwise id-<digest of the selector>. Both colours of a shard's
// blue/green Rollout run the same selector and so share its Lease; two shards never do.
func LeaseName(id string, sel labels.Selector) string {
	if sel.Empty() || sel.String() == MainSelector {
		return id
	}
	if reqs, _ := sel.Requirements(); len(reqs) == 1 && reqs[0].Key() == apis.ShardLabel {
		switch reqs[0].Operator() {
		case selection.Equals, selection.DoubleEquals, selection.In:
			if vals := reqs[0].Values().UnsortedList(); len(vals) == 1 && len(validation.IsDNS1123Label(vals[0])) == 0 {
				return id + "-" + vals[0]
			}
		}
	}
	sum := sha256.Sum256([]byte(sel.String()))
	return id + "-" + hex.EncodeToString(sum[:])[:10]
}
