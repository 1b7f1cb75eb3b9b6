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

// Package managerstatus reports, in every SiteSync's status.manager, the state of siteops' own manager Rollout
// (Argo Rollouts, blue/green): its phase, the stable and preview images and the verdict of the preview's
// pre-promotion analysis (the shadow report). It is what the person promoting an upgrade reads, with
// `siteops status` or kubectl.
package managerstatus

import (
	"context"
	"fmt"
	"reflect"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/predicate"

	gitopsv1alpha1 "github.com/siteops/siteops/apis/gitops/v1alpha1"
	"github.com/siteops/siteops/controllers/internal/kit"
)

// DefaultInterval is how often a SiteSync's status.manager is refreshed when Interval is zero.
const DefaultInterval = 10 * time.Second

// Reconciler keeps status.manager of SiteSyncs up to date.
type Reconciler struct {
	// Client reads SiteSyncs (cached) and patches their status.
	client.Client
	// APIReader reads the Rollout, its ReplicaSets and AnalysisRuns straight from the apiserver: no informer
	// is started for Argo Rollouts' kinds, so the manager runs unchanged where Argo Rollouts is not installed.
	APIReader client.Reader
	// Interval is how often status.manager is refreshed; zero means DefaultInterval.
	Interval time.Duration
	// Complete says how the manager runs the controller (see kit.Completer); nil runs it while leading.
	Complete kit.Completer
}

// +kubebuilder:rbac:groups=gitops.siteops.dev,resources=sitesyncs,verbs=get;list;watch
// +kubebuilder:rbac:groups=gitops.siteops.dev,resources=sitesyncs/status,verbs=get;update;patch
// +kubebuilder:rbac:groups=argoproj.io,resources=rollouts;analysisruns,verbs=get;list;watch
// +kubebuilder:rbac:groups=apps,resources=replicasets,verbs=get

// SetupWithManager registers the controller for SiteSyncs (created, or spec changed); it then looks again every
// Interval, as Rollouts are read, not watched.
func (r *Reconciler) SetupWithManager(mgr ctrl.Manager) error {
	if r.APIReader == nil {
		r.APIReader = mgr.GetAPIReader()
	}
	b := ctrl.NewControllerManagedBy(mgr).
		For(&gitopsv1alpha1.SiteSync{}, builder.WithPredicates(predicate.GenerationChangedPredicate{})).
		Named("sitesync-manager-status")
	return kit.Complete(r.Complete, b, controller.Options{}, &gitopsv1alpha1.SiteSyncList{}, r)
}

// Reconcile reads the SiteSync's manager Rollout and patches status.manager when it changed.
func (r *Reconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	obj := &gitopsv1alpha1.SiteSync{}
	if err := r.Get(ctx, req.NamespacedName, obj); err != nil {
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	status, err := Observe(ctx, r.APIReader, rolloutKey(obj.Spec.ManagerRollout))
	if err != nil {
		return ctrl.Result{}, fmt.Errorf("reading the manager Rollout for SiteSync %s: %w", req.NamespacedName, err)
	}
	if !reflect.DeepEqual(status, obj.Status.Manager) {
		patch := client.MergeFrom(obj.DeepCopy())
		obj.Status.Manager = status
		if err := r.Status().Patch(ctx, obj, patch); err != nil {
			if apierrors.IsNotFound(err) {
				return ctrl.Result{}, nil
			}
			return ctrl.Result{}, fmt.Errorf("patching status.manager of SiteSync %s: %w", req.NamespacedName, err)
		}
	}
	return ctrl.Result{RequeueAfter: r.interval()}, nil
}

func (r *Reconciler) interval() time.Duration {
	if r.Interval > 0 {
		return r.Interval
	}
	return DefaultInterval
}
