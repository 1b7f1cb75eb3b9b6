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

package guestbook

import (
	"context"
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	utilrand "k8s.io/apimachinery/pkg/util/rand"
	"k8s.io/utils/clock"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/log"

	webappv1 "github.com/siteops/siteops/apis/webapp/v1"
)

// podDeletionCost is the annotation a ReplicaSet reads to choose which pods to remove first on scale-down;
// the active pod gets a high cost so scaling down removes standbys, not it.
const (
	podDeletionCost    = "controller.kubernetes.io/pod-deletion-cost"
	activeDeletionCost = "1000"
)

// reconcileRoles lists the Guestbook's pods and labels exactly one Ready pod active and the others standby,
// following planRoles. Each write is a merge patch with the listed resourceVersion as a precondition, so a
// conflict (another writer got there first) aborts the step and the reconcile is retried on a fresh view.
func (r *Reconciler) reconcileRoles(ctx context.Context, st *scope) error {
	list := &corev1.PodList{}
	if err := r.List(ctx, list, client.InNamespace(st.gb.Namespace),
		client.MatchingLabels(selectorLabels(st.gb))); err != nil {
		return fmt.Errorf("listing pods: %w", err)
	}
	st.pods = list.Items

	plan := planRoles(st.pods, st.gb.Status.Active)
	epoch := ""
	if plan.promoted {
		epoch = utilrand.String(10)
	}
	for _, w := range plan.writes {
		if err := r.writeRole(ctx, w, epoch); err != nil {
			if apierrors.IsNotFound(err) && w.role == webappv1.RoleStandby {
				continue // a pod that is gone is not active
			}
			return fmt.Errorf("labelling pod %s %s: %w", w.pod.Name, w.role, err)
		}
	}
	st.active, st.rolesDone = plan.active, true

	switch {
	case plan.promoted:
		r.recordPromotion(ctx, st.gb, plan)
	case plan.active == "" && plan.previous != "":
		r.events().Warning(st.gb, webappv1.EventNoReadyPod,
			"active pod %s is not Ready and no standby is Ready", plan.previous)
	}
	return nil
}

// writeRole patches one pod's role as rolePatched describes, with an optimistic lock on the resourceVersion
// the pod was listed at. It updates w.pod in place on success.
func (r *Reconciler) writeRole(ctx context.Context, w roleWrite, epoch string) error {
	pod := rolePatched(w, epoch)
	if err := r.Patch(ctx, pod, client.MergeFromWithOptions(w.pod, client.MergeFromWithOptimisticLock{})); err != nil {
		return err
	}
	*w.pod = *pod
	return nil
}

// rolePatched is w.pod with w's role label and, for a touching write, the role epoch; the active pod also gets
// a high deletion cost, which the others lose.
func rolePatched(w roleWrite, epoch string) *corev1.Pod {
	pod := w.pod.DeepCopy()
	if pod.Labels == nil {
		pod.Labels = map[string]string{}
	}
	pod.Labels[webappv1.LabelRole] = w.role
	if pod.Annotations == nil {
		pod.Annotations = map[string]string{}
	}
	if w.touch {
		pod.Annotations[webappv1.AnnotationRoleEpoch] = epoch
	}
	if w.role == webappv1.RoleActive {
		pod.Annotations[podDeletionCost] = activeDeletionCost
	} else {
		delete(pod.Annotations, podDeletionCost)
	}
	return pod
}

// recordPromotion emits ActiveChanged and, when a pod was active before, reports a failover with how long
// the Guestbook was without a Ready active pod.
func (r *Reconciler) recordPromotion(ctx context.Context, gb *webappv1.Guestbook, plan rolePlan) {
	if plan.previous == "" {
		r.events().Normal(gb, webappv1.EventActiveChanged, "pod %s is active", plan.active)
		return
	}
	r.events().Normal(gb, webappv1.EventActiveChanged, "pod %s is active, replacing %s", plan.active, plan.previous)
	var down time.Duration
	if !plan.previousDown.IsZero() {
		down = r.clock().Since(plan.previousDown)
		log.FromContext(ctx).Info("failover", "from", plan.previous, "to", plan.active, "seconds", down.Seconds())
	}
	r.observer().Failover(down)
}

// clock is r.Clock, or the real clock.
func (r *Reconciler) clock() clock.PassiveClock {
	if r.Clock == nil {
		return clock.RealClock{}
	}
	return r.Clock
}
