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

// Package guestbook is the Guestbook controller: it runs a Guestbook's pods as a Deployment, keeps exactly one
// Ready pod labelled active behind the <name> Service (the others behind <name>-standby) and promotes a Ready
// standby as soon as the active pod stops being Ready or goes away.
package guestbook

import (
	"context"
	"errors"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/tools/events"
	"k8s.io/utils/clock"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/log"

	webappv1 "github.com/siteops/siteops/apis/webapp/v1"
	"github.com/siteops/siteops/internal/kit"
)

// Reconciler reconciles a Guestbook: its ConfigMap, Deployment, two Services and the role labels of its pods.
type Reconciler struct {
	client.Client
	// APIReader reads the Guestbook's ConfigMap straight from the apiserver: the ConfigMap is the user's, carries
	// no shard label, and caching every ConfigMap's data in every manager would cost more than one read per
	// reconcile. Only the ConfigMaps' metadata is cached, to map their changes to Guestbooks. SetupWithManager
	// fills it with the manager's when nil; a Reconciler used without it reads with Client.
	APIReader client.Reader
	// ConfigHashes remembers each ConfigMap's data hash by version, so that a ConfigMap that did not change
	// since it was last read (as the cached metadata tells) is not read again; the leader's and the standby's
	// reconcilers share one. Nil reads the ConfigMap on every reconcile.
	ConfigHashes *ConfigHashes
	Scheme       *runtime.Scheme
	// Recorder emits one Event per visible action; nil records nothing.
	Recorder events.EventRecorder
	// Clock stamps condition transitions and measures failovers; nil means the real clock.
	Clock clock.PassiveClock
	// Observer receives the failover measurements (the manager gives the leader a *Metrics); nil measures nothing.
	Observer Observer
	// Complete says how the manager runs the controller (see kit.Completer); nil runs it while leading.
	Complete kit.Completer
}

// scope is what one reconcile learns and decides, shared by its steps and read by the status summary.
type scope struct {
	kit.Flow
	gb *webappv1.Guestbook
	// configRead is true once the config step has looked for the ConfigMap.
	configRead bool
	// configFound is true when the Guestbook's ConfigMap exists.
	configFound bool
	// configHash hashes the ConfigMap's data; it is the pod template's config-hash annotation.
	configHash string
	// pods are the Guestbook's pods (label LabelGuestbook=<name>), as listed from the cache.
	pods []corev1.Pod
	// rolesDone is true once the role step has written every role; pods and active are then current.
	rolesDone bool
	// active is the pod the <name> Service selects after this reconcile, "" when none.
	active string
}

// +kubebuilder:rbac:groups=webapp.my.domain,resources=guestbooks,verbs=get;list;watch
// +kubebuilder:rbac:groups=webapp.my.domain,resources=guestbooks/status,verbs=get;patch
// +kubebuilder:rbac:groups=webapp.my.domain,resources=guestbooks/finalizers,verbs=update
// +kubebuilder:rbac:groups=apps,resources=deployments,verbs=get;list;watch;create;patch
// +kubebuilder:rbac:groups="",resources=services,verbs=get;list;watch;create;patch
// +kubebuilder:rbac:groups="",resources=pods,verbs=get;list;watch;patch
// +kubebuilder:rbac:groups="",resources=configmaps,verbs=get;list;watch
// +kubebuilder:rbac:groups=events.k8s.io,resources=events,verbs=create;patch

// Reconcile runs the Guestbook's steps in order and patches its status once, on the way out.
//
// The role step runs right after the config step, before the workload and Services are applied, so a
// failover waits for no other API call. Deletion needs no step: everything the Guestbook creates carries an
// owner reference to it and is garbage-collected with it.
func (r *Reconciler) Reconcile(ctx context.Context, req ctrl.Request) (res ctrl.Result, retErr error) {
	gb := &webappv1.Guestbook{}
	if err := r.Get(ctx, req.NamespacedName, gb); err != nil {
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	if !gb.DeletionTimestamp.IsZero() {
		return ctrl.Result{}, nil
	}
	st := &scope{gb: gb}
	before := gb.DeepCopy()
	defer func() {
		r.summarize(st, retErr)
		retErr = errors.Join(retErr, kit.PatchStatus(ctx, r.Client, before, gb))
		res, retErr = kit.Finish(retryConflict(ctx, res, retErr))
	}()

	res, retErr = kit.RunSteps(ctx, st, []kit.Step[*scope]{
		{Name: "config", Run: r.reconcileConfig},
		{Name: "roles", Run: r.reconcileRoles},
		{Name: "workload", Run: r.reconcileWorkload},
		{Name: "services", Run: r.reconcileServices},
	})
	log.FromContext(ctx).V(1).Info("reconciled", "active", st.active, "pods", len(st.pods))
	return res, retErr
}

// conflictRetry is how soon a Reconcile that lost an optimistic-lock race runs again.
const conflictRetry = 100 * time.Millisecond

// retryConflict turns a conflict (another writer changed the object since the cache read it: a racing
// manager, the Deployment controller) into a quick requeue logged at V(1), so it is not logged as a
// reconcile error; any other error is returned as it is.
func retryConflict(ctx context.Context, res ctrl.Result, err error) (ctrl.Result, error) {
	if err == nil || !apierrors.IsConflict(err) {
		return res, err
	}
	log.FromContext(ctx).V(1).Info("conflict, reading again", "after", conflictRetry, "error", err.Error())
	return ctrl.Result{RequeueAfter: conflictRetry}, nil
}
